import type { Storage } from '@spillway/core';

/** The words of a {@link WriteFlag}: the HTTP thread's ingests, the workers' thread's commits. */
const INGESTING = 0;
const COMMITTING = 1;
/**
 * How long either writer waits at most for the other's transaction to end (an ingest for a
 * commit, a commit for an ingest) before it begins anyway (SQLite's busy handler then waits for
 * the lock): a bound, should a word be stale.
 */
const WAIT_MS = 100;

/** `Atomics.waitAsync` (Node 16 on; in TypeScript's ES2024 library, past the ES2023 this project targets). */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(
      array: Int32Array,
      index: number,
      value: number,
      timeoutMs: number,
    ): { async: false; value: 'not-equal' | 'timed-out' } | { async: true; value: Promise<'ok' | 'timed-out'> };
  }
).waitAsync;

/**
 * Who of the reference server's two writing threads is inside a write transaction of its SQLite
 * file, in two words of shared memory: the HTTP thread's ingests and the workers' thread's round
 * commits. SQLite's lock lets one write at a time, and a writer that finds it taken sleeps in
 * the busy handler, 1, 2, 5, 10 … ms at a time: a 5000-message ingest kept the workers' thread
 * asleep for most of its transaction, and a commit woke an ingest behind it late. So each waits
 * for the other's transaction and is woken the moment it ends:
 * - a round's commit that finds an ingest running blocks the workers' thread (`Atomics.wait`):
 *   rounds that went on sending meanwhile, committing after, were slower end to end; but first
 *   the round reads the handed-over messages its next round takes ({@link WriteFlag.ingesting},
 *   the workers' engine's `writerBusy`), a read that needs no lock;
 * - an ingest that finds a commit running waits without blocking the HTTP thread's event loop
 *   (`Atomics.waitAsync`).
 * Both are hints over SQLite's own lock, which still decides: a stale word costs time, not
 * correctness (`docs/decisions.md`, "Speed, twentieth pass", "twenty-first pass",
 * "twenty-third pass" and "twenty-fourth pass").
 */
export interface WriteFlag {
  /** The shared words, for the other thread ({@link openWriteFlag}). */
  readonly buffer: SharedArrayBuffer;
  /** Makes `storage`'s ingests wait for a running commit, then raise the flag while their transaction runs. */
  markIngests(storage: Pick<Storage, 'ingest' | 'ingestMany'>): void;
  /** Makes `storage`'s round commits wait for a running ingest, then raise the flag while their transaction runs, and wake a waiting ingest after. */
  markCommits(storage: Pick<Storage, 'commit'>): void;
  /** Clears the commits' word (the workers' thread ended, perhaps inside a commit). */
  clearCommits(): void;
  /** Whether an ingest holds the write lock now (`EngineOptions.writerBusy` of the workers' engine). */
  ingesting(): boolean;
}

/** A new {@link WriteFlag} (the HTTP thread's). */
export function createWriteFlag(): WriteFlag {
  return openWriteFlag(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
}

/** The {@link WriteFlag} over a buffer another thread made. */
export function openWriteFlag(buffer: SharedArrayBuffer): WriteFlag {
  const words = new Int32Array(buffer);
  /**
   * Raises `word` around `write`, whose transaction has run by the time the call returns
   * (better-sqlite3 is synchronous, whatever promise the storage answers), and wakes a waiter after.
   */
  const raising =
    <A extends unknown[], R>(word: number, write: (...args: A) => R) =>
    (...args: A): R => {
      Atomics.store(words, word, 1);
      try {
        return write(...args);
      } finally {
        Atomics.store(words, word, 0);
        Atomics.notify(words, word);
      }
    };
  /** Resolves once no commit runs, or after {@link WAIT_MS}. */
  const commitEnded = async (): Promise<void> => {
    const deadline = performance.now() + WAIT_MS;
    for (let left = WAIT_MS; left > 0 && Atomics.load(words, COMMITTING) === 1; left = deadline - performance.now()) {
      const wait = waitAsync(words, COMMITTING, 1, left);
      if (wait.async) await wait.value;
    }
  };
  return {
    buffer,
    markIngests(storage) {
      /** `write` raising the ingests' word, begun once no commit runs. */
      const afterCommit = <A extends unknown[], R>(write: (...args: A) => Promise<R>) => {
        const raised = raising(INGESTING, write);
        return async (...args: A): Promise<R> => {
          if (Atomics.load(words, COMMITTING) === 1) await commitEnded();
          return raised(...args);
        };
      };
      storage.ingest = afterCommit(storage.ingest);
      storage.ingestMany = afterCommit(storage.ingestMany);
    },
    markCommits(storage) {
      const commit = raising(COMMITTING, storage.commit);
      storage.commit = (round) => {
        // The workers' thread may block: it would wait in SQLite's busy handler, only later.
        if (Atomics.load(words, INGESTING) === 1) Atomics.wait(words, INGESTING, 1, WAIT_MS);
        return commit(round);
      };
    },
    clearCommits() {
      Atomics.store(words, COMMITTING, 0);
      Atomics.notify(words, COMMITTING);
    },
    ingesting: () => Atomics.load(words, INGESTING) === 1,
  };
}
