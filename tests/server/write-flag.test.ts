import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import type { Commit, CommitResult } from '@spillway/core';
import type { IngestBatch, IngestResult } from '@spillway/core/storage';
import { createWriteFlag, openWriteFlag } from '../../apps/server/src/write-flag.ts';

// The HTTP thread's ingests and the workers' thread's commits say, in shared memory, when they
// are inside a write transaction: each that finds the other's running waits for its end (woken
// by it) instead of sleeping in SQLite's busy handler.

const ACCEPTED: IngestResult = { status: 'accepted', listId: 1, ids: [1], replays: [] };
const batch = { accountId: 1, at: 0, messages: [], chargeDescription: '' } satisfies IngestBatch;
const commit = { at: 0, owner: 'w', updates: [], providerIds: [], receipts: [] } satisfies Commit;

/** Whether the flag's ingest word is raised, as the workers' thread asks it (its engine's `writerBusy`). */
const ingesting = (buffer: SharedArrayBuffer) => openWriteFlag(buffer).ingesting;

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
    const storage = ingests(log, ingesting(flag.buffer));
    flag.markIngests(storage);
    expect(ingesting(flag.buffer)()).toBe(false);
    expect(await storage.ingest(batch)).toEqual(ACCEPTED);
    expect(await storage.ingestMany([batch, batch])).toEqual([ACCEPTED, ACCEPTED]);
    expect(log).toEqual(['ingest, flagged true', 'ingestMany, flagged true']);
    expect(ingesting(flag.buffer)()).toBe(false);
  });

  it("an ingest that finds a commit of the other thread's running begins once the commit ended", async () => {
    const http = createWriteFlag();
    const workers = openWriteFlag(http.buffer);
    const log: string[] = [];
    const storage = ingests(log, ingesting(http.buffer));
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
    const storage = ingests(log, ingesting(http.buffer));
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

  it("a commit that finds an ingest of the other thread's running begins once the ingest ended", async () => {
    const http = createWriteFlag();
    const workers = openWriteFlag(http.buffer);
    // A second thread stands for the HTTP thread: it raises the ingest word, and, told to go,
    // ends its ingest 5 ms later (well within the commit's 100 ms bound), noting when in `ended`.
    const ended = new Int32Array(new SharedArrayBuffer(8));
    const thread = new Worker(
      `const { workerData: { flag, ended } } = require('node:worker_threads');
       const words = new Int32Array(flag);
       Atomics.store(words, 0, 1);
       Atomics.store(ended, 1, 1);
       Atomics.notify(ended, 1);
       Atomics.wait(ended, 1, 1);
       Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
       Atomics.store(ended, 0, 1);
       Atomics.store(words, 0, 0);
       Atomics.notify(words, 0);`,
      { eval: true, workerData: { flag: http.buffer, ended } },
    );
    try {
      // Until the other thread has raised its word (ended[1] goes to 1).
      while (Atomics.load(ended, 1) === 0) await new Promise((resolve) => setTimeout(resolve, 1));
      let endedAtBegin: number | undefined;
      const work = {
        commit: async (_: Commit): Promise<CommitResult> => {
          endedAtBegin = Atomics.load(ended, 0);
          return { conflicts: [] };
        },
      };
      workers.markCommits(work);
      Atomics.store(ended, 1, 0);
      Atomics.notify(ended, 1);
      await work.commit(commit);
      expect(endedAtBegin).toBe(1);
    } finally {
      await thread.terminate();
    }
  });
});
