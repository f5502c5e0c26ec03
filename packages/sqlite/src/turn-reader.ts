import Database from 'better-sqlite3';
import { afterTurn } from '@spillway/core/storage';

/**
 * Hot reads of one turn of the event loop in one read transaction, on a connection of their own.
 *
 * Every statement outside a transaction is a read transaction of its own, and in WAL mode each one
 * takes a read mark of the shared-memory index and lets it go: two `fcntl` locks on the `-shm`
 * file and the index's header read again, about 3 of a status read's 5 µs (a primary-key `SELECT`
 * costs 3.0 µs where `SELECT 1` costs 0.2). Under load an HTTP thread answers several status reads
 * a turn: they share one transaction, begun at the turn's first read and ended after the turn's
 * I/O callbacks (`setImmediate`), so that the log can be checkpointed past it at once.
 *
 * What a turn's reads see: everything committed before its first read (so, as with the other
 * per-turn reads, everything committed before the turn began), and every write this storage makes
 * itself, since the storage ends the transaction before each of its other operations (`end`), so
 * that a read after a write, in any turn, starts a transaction that sees it. What the snapshot
 * does not hold is looked for again in a new transaction ({@link find}): another connection may
 * have stored it since, and answered a client who asks for it at once. A separate connection,
 * because a read transaction left open on the writing connection would make its next write
 * transaction a nested one, upgraded from a stale snapshot.
 */
export class TurnReader {
  readonly db: Database.Database;
  private open = false;
  private readonly begin: Database.Statement;
  private readonly commit: Database.Statement;

  constructor(filename: string, busyTimeoutMs: number) {
    this.db = new Database(filename, { fileMustExist: true });
    this.db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    this.begin = this.db.prepare('BEGIN');
    this.commit = this.db.prepare('COMMIT');
  }

  /** Runs `fn` (statements prepared on {@link db}) inside the turn's read transaction. */
  read<T>(fn: () => T): T {
    if (!this.open) {
      this.begin.run();
      this.open = true;
      afterTurn(() => this.end());
    }
    return fn();
  }

  /**
   * {@link read} of a row that may have been stored after the turn's snapshot was taken: a miss
   * ends the transaction and reads again in a new one, which sees every commit so far. A found row
   * costs nothing more; an unknown one costs a second read.
   */
  find<T>(fn: () => T | undefined): T | undefined {
    const found = this.read(fn);
    if (found !== undefined) return found;
    this.end();
    return this.read(fn);
  }

  /** Ends the turn's read transaction, if one is open: the next read begins another, which sees every commit so far. */
  end(): void {
    if (!this.open) return;
    this.open = false;
    if (this.db.inTransaction) this.commit.run();
  }

  close(): void {
    this.end();
    if (this.db.open) this.db.close();
  }
}
