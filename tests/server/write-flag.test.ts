import { describe, expect, it } from 'vitest';
import type { Commit, CommitResult } from '@spillway/core';
import type { IngestBatch, IngestResult } from '@spillway/core/storage';
import { createWriteFlag, openWriteFlag } from '../../apps/server/src/write-flag.ts';

// The HTTP thread's ingests and the workers' thread's commits say, in shared memory, when they
// are inside a write transaction: the workers' rounds only send during an ingest, and an ingest
// that finds a commit running waits for its end (woken by it) instead of SQLite's busy handler.

const ACCEPTED: IngestResult = { status: 'accepted', listId: 1, ids: [1], replays: [] };
const batch = { accountId: 1, at: 0, messages: [], chargeDescription: '' } satisfies IngestBatch;
const commit = { at: 0, owner: 'w', updates: [], providerIds: [], receipts: [] } satisfies Commit;

/** A storage of the HTTP thread whose ingests note, as they run, whether the flag says so. */
function ingests(log: string[], ingesting: () => boolean) {
  return {
    ingest: async (_: IngestBatch): Promise<IngestResult> => {
      log.push(`ingest, flagged ${ingesting()}`);
      return ACCEPTED;
    },
    ingestMany: async (batches: IngestBatch[]): Promise<IngestResult[]> => {
      log.push(`ingestMany, flagged ${ingesting()}`);
      return batches.map(() => ACCEPTED);
    },
  };
}

describe('the write flag of the HTTP and workers threads', () => {
  it('is raised while an ingest runs, and only then', async () => {
    const flag = createWriteFlag();
    const log: string[] = [];
    const storage = ingests(log, flag.ingesting);
    flag.markIngests(storage);
    expect(flag.ingesting()).toBe(false);
    expect(await storage.ingest(batch)).toEqual(ACCEPTED);
    expect(await storage.ingestMany([batch, batch])).toEqual([ACCEPTED, ACCEPTED]);
    expect(log).toEqual(['ingest, flagged true', 'ingestMany, flagged true']);
    expect(flag.ingesting()).toBe(false);
  });

  it("an ingest that finds a commit of the other thread's running begins once the commit ended", async () => {
    const http = createWriteFlag();
    const workers = openWriteFlag(http.buffer);
    const log: string[] = [];
    const storage = ingests(log, http.ingesting);
    http.markIngests(storage);
    let started: Promise<IngestResult[]> | undefined;
    const work = {
      commit: async (_: Commit): Promise<CommitResult> => {
        log.push('commit begins');
        // An ingest asked for while the commit holds the lock.
        started = storage.ingestMany([batch]);
        await Promise.resolve();
        log.push('commit ends');
        return { conflicts: [] };
      },
    };
    workers.markCommits(work);
    await work.commit(commit);
    expect(await started).toEqual([ACCEPTED]);
    expect(log).toEqual(['commit begins', 'commit ends', 'ingestMany, flagged true']);
  });

  it('an ingest does not wait for a commit of a thread that ended inside it', async () => {
    const http = createWriteFlag();
    const log: string[] = [];
    const storage = ingests(log, http.ingesting);
    http.markIngests(storage);
    // The workers' thread raised its word and ended before clearing it.
    new Int32Array(http.buffer)[1] = 1;
    const waiting = storage.ingest(batch);
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual([]);
    http.clearCommits();
    expect(await waiting).toEqual(ACCEPTED);
    expect(log).toEqual(['ingest, flagged true']);
  });
});
