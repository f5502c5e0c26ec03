import type { IngestBatch, IngestResult, MessageStorage } from '../ports/message-storage.ts';
import type { Storage } from '../ports/storage.ts';
import { handedOverIds } from '../storage/ingest-rows.ts';
import { yieldToEventLoop } from './round-loop.ts';

/** Messages an ingest stored leased to the worker `owner` (`IngestBatch.lease`), for it to take by id. */
export interface HandOver {
  owner: string;
  ids: number[];
  /** The accepted requests that handed them over: the worker takes the messages as stored from them while their leases hold. */
  accepted: Array<{ batch: IngestBatch; result: IngestResult }>;
}

/** Messages a group carries at most; a request alone may be larger (it is never cut). */
const GROUP_MAX_MESSAGES = 20_000;

interface Waiting {
  batch: IngestBatch;
  resolve: (result: IngestResult) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit of acceptances: requests that reach the storage in the same turn of the event
 * loop are written in one transaction (`ingestMany`), each decided as if alone and in order, and
 * each caller is answered with its own result once that transaction has committed. Single-message
 * requests then share a transaction's fixed cost (BEGIN, COMMIT, the WAL write) instead of paying
 * it one by one; a request alone in its turn is written exactly as before.
 *
 * When a group's transaction fails, nothing of it was written: its requests are then written one
 * by one, so that one request's failure is never another's. Unless the storage says the database
 * was busy or out of reach (`Storage.isBusy`, `isUnavailable`): that is no request's own failure,
 * and each alone would wait as long again before failing the same way (a group of six sends
 * against a locked account took six busy timeouts to answer its last one), so every request of
 * the group is answered with that error at once (a 503 with `Retry-After` through HTTP).
 */
export function createIngestGroup(
  storage: Pick<MessageStorage, 'ingest' | 'ingestMany' | 'prepareIngest'> & Pick<Storage, 'isBusy' | 'isUnavailable'>,
  /** Called once a group stored something, with the messages it handed over to each lease's owner (`IngestBatch.lease`). */
  onAccepted: (handedOver: HandOver[]) => void,
) {
  let waiting: Waiting[] = [];
  let scheduled = false;

  async function writeAlone(w: Waiting): Promise<IngestResult | null> {
    try {
      const result = await storage.ingest(w.batch);
      w.resolve(result);
      return result;
    } catch (error) {
      w.reject(error);
      return null;
    }
  }

  async function write(group: Waiting[]): Promise<void> {
    let results: Array<IngestResult | null> | null = null;
    if (group.length > 1) {
      try {
        results = await storage.ingestMany(group.map((w) => w.batch));
        group.forEach((w, i) => w.resolve(results![i]!));
      } catch (error) {
        if (storage.isBusy?.(error) || storage.isUnavailable?.(error)) {
          for (const w of group) w.reject(error);
          return;
        }
        results = null;
      }
    }
    if (!results) {
      results = [];
      for (const w of group) results.push(await writeAlone(w));
    }
    // One wake-up of the workers for the whole group.
    if (!results.some((r) => r?.status === 'accepted')) return;
    const byOwner = new Map<string, HandOver>();
    group.forEach((w, i) => {
      const result = results![i];
      const ids = handedOverIds(w.batch, result ?? null);
      if (ids.length === 0) return;
      const { owner } = w.batch.lease!;
      let handOver = byOwner.get(owner);
      if (!handOver) byOwner.set(owner, (handOver = { owner, ids: [], accepted: [] }));
      for (const id of ids) handOver.ids.push(id);
      handOver.accepted.push({ batch: w.batch, result: result! });
    });
    onAccepted([...byOwner.values()]);
  }

  function flush(): void {
    scheduled = false;
    while (waiting.length > 0) {
      // Cut into groups of at most GROUP_MAX_MESSAGES messages (a larger request goes alone).
      let size = 0;
      let n = 0;
      while (n < waiting.length && (n === 0 || size + waiting[n]!.batch.messages.length <= GROUP_MAX_MESSAGES)) {
        size += waiting[n]!.batch.messages.length;
        n++;
      }
      void write(waiting.slice(0, n));
      waiting = waiting.slice(n);
    }
  }

  return {
    /** Accepts a request with those that arrive in the same turn; resolves once it is committed. */
    ingest(batch: IngestBatch): Promise<IngestResult> {
      return new Promise<IngestResult>((resolve, reject) => {
        // Its rows built now, outside the write lock (another thread's writes may hold it).
        storage.prepareIngest?.(batch);
        waiting.push({ batch, resolve, reject });
        if (scheduled) return;
        scheduled = true;
        // After the current turn's callbacks (other requests being validated) have run.
        void yieldToEventLoop().then(flush);
      });
    },
  };
}
