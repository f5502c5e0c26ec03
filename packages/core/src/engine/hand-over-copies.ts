import type { IngestBatch, IngestResult, NewMessage } from '../ports/message-storage.ts';
import { handedOverMessages, isHandedOver, stepsTextOf } from '../storage/ingest-rows.ts';
import type { StoredMessage } from '../types/message.ts';

/**
 * Copies of handed-over messages on their way to a worker in another thread, as one list of
 * primitives, which a structured clone (`postMessage`) copies for a fraction of what it costs for
 * the objects themselves (about 0.2 against 3.5 us a message to post, and a few times less to
 * receive), their JSON values as text, parsed by the receiving thread. The messages of a request
 * share most of their fields: they go as runs, each a {@link HEAD} of the shared fields and the
 * number of messages, then {@link EACH} fields a message. Opaque to its users: made by an engine
 * for its `onWork`, read by the other engine's `handOver`.
 */
export type HandedOverCopies = readonly unknown[];

/** A handed-over message as its worker takes it, valid while its lease holds (`until`, exclusive). */
export interface HandedOverCopy {
  message: StoredMessage;
  until: number;
}

/** Fields of a run's head: the number of messages, their lease's end, then what they share. */
const HEAD = 14;
/**
 * Fields of each message of a run: its id, steps and cost, then 0, or 1 and its {@link RARE}
 * fields that a messaging API message seldom has.
 */
const EACH = 4;
const RARE = 6;

/** The messages an accepted ingest handed over, as its worker takes them (`handedOverMessages` with their lease's end). */
export function handedOverCopies(batch: IngestBatch, result: IngestResult | null): HandedOverCopy[] {
  const until = batch.lease?.until ?? 0;
  return handedOverMessages(batch, result).map((message) => ({ message, until }));
}

/** Whether `b` shares a run's head with `a` (messages of one batch). */
const sameHead = (a: NewMessage, b: NewMessage) =>
  a.kind === b.kind &&
  a.status === b.status &&
  a.snapshot === b.snapshot &&
  a.routeRef === b.routeRef &&
  a.dueAt === b.dueAt &&
  a.work === b.work &&
  a.charge > 0 === b.charge > 0;

/** Whether `m` has none of the {@link RARE} fields (as a messaging API message without a ttl or a customerMessageId). */
const plain = (m: NewMessage) =>
  m.guid === null && m.trackinId === null && m.customerMessageId === null && m.content === '' && m.expiresAt === null && m.meta === null;

/**
 * The messages an accepted ingest handed over ({@link handedOverCopies}) as {@link HandedOverCopies},
 * made from the batch without the objects. The list is filled in order, never presized: V8
 * clones a list with holes entry by entry, several times slower.
 */
export function encodeCopies(batch: IngestBatch, result: IngestResult | null): unknown[] {
  const into: unknown[] = [];
  if (!batch.lease || result?.status !== 'accepted') return into;
  const replays = new Set(result.replays);
  const indexes: number[] = [];
  batch.messages.forEach((m, i) => {
    if (!replays.has(i) && isHandedOver(batch, m)) indexes.push(i);
  });
  let k = 0;
  for (let r = 0; r < indexes.length;) {
    const first = batch.messages[indexes[r]!]!;
    let n = 1;
    while (r + n < indexes.length && sameHead(first, batch.messages[indexes[r + n]!]!)) n++;
    // As handedOverMessages makes them: the batch's list, account and time, version 0.
    into[k++] = n;
    into[k++] = batch.lease.until;
    into[k++] = result.listId;
    into[k++] = batch.accountId;
    into[k++] = first.kind;
    into[k++] = first.status;
    into[k++] = JSON.stringify(first.snapshot);
    into[k++] = first.routeRef;
    into[k++] = batch.at;
    into[k++] = batch.at;
    into[k++] = first.dueAt;
    into[k++] = 0;
    into[k++] = JSON.stringify(first.work);
    into[k++] = first.charge > 0 ? 1 : 0;
    for (const end = r + n; r < end; r++) {
      const i = indexes[r]!;
      const m = batch.messages[i]!;
      into[k++] = result.ids[i];
      into[k++] = stepsTextOf(m);
      into[k++] = m.charge;
      if (plain(m)) {
        into[k++] = 0;
        continue;
      }
      into[k++] = 1;
      into[k++] = m.guid;
      into[k++] = m.trackinId;
      into[k++] = m.customerMessageId;
      into[k++] = m.content;
      into[k++] = m.expiresAt;
      into[k++] = m.meta === null ? null : JSON.stringify(m.meta);
    }
  }
  return into;
}

/** The copies of {@link encodeCopies}; a list of another shape answers none (the worker then reads the messages). */
export function decodeCopies(values: HandedOverCopies): HandedOverCopy[] {
  if (!Array.isArray(values)) return [];
  const v = values as unknown[];
  const copies: HandedOverCopy[] = [];
  for (let k = 0; k < v.length;) {
    const n = v[k];
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || k + HEAD + n * EACH > v.length) return [];
    const until = v[k + 1] as number;
    // Shared as they were shared when encoded: parsed once a run (never mutated: a step makes new ones).
    const snapshot = JSON.parse(v[k + 6] as string) as StoredMessage['snapshot'];
    const work = JSON.parse(v[k + 12] as string) as StoredMessage['work'];
    const head = k;
    k += HEAD;
    for (let j = 0; j < n; j++) {
      const rare = v[k + 3] === 1;
      if (k + EACH + (rare ? RARE : 0) > v.length) return [];
      copies.push({
        message: {
          id: v[k] as number,
          listId: v[head + 2] as number,
          accountId: v[head + 3] as number,
          kind: v[head + 4] as StoredMessage['kind'],
          guid: rare ? (v[k + 4] as string | null) : null,
          trackinId: rare ? (v[k + 5] as string | null) : null,
          customerMessageId: rare ? (v[k + 6] as string | null) : null,
          content: rare ? (v[k + 7] as string) : '',
          steps: JSON.parse(v[k + 1] as string) as StoredMessage['steps'],
          status: v[head + 5] as StoredMessage['status'],
          snapshot,
          routeRef: v[head + 7] as string | null,
          createdAt: v[head + 8] as number,
          updatedAt: v[head + 9] as number,
          dueAt: v[head + 10] as number,
          expiresAt: rare ? (v[k + 8] as number | null) : null,
          cost: v[k + 2] as number,
          meta: rare && v[k + 9] !== null ? (JSON.parse(v[k + 9] as string) as StoredMessage['meta']) : null,
          version: v[head + 11] as number,
          work,
          charged: v[head + 13] as number,
        },
        until,
      });
      k += EACH + (rare ? RARE : 0);
    }
  }
  return copies;
}
