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

/** Whether `b` shares a run's head with `a`. */
const sameHead = (a: StoredMessage, b: StoredMessage) =>
  a.listId === b.listId &&
  a.accountId === b.accountId &&
  a.kind === b.kind &&
  a.status === b.status &&
  a.snapshot === b.snapshot &&
  a.routeRef === b.routeRef &&
  a.createdAt === b.createdAt &&
  a.updatedAt === b.updatedAt &&
  a.dueAt === b.dueAt &&
  a.version === b.version &&
  a.work === b.work &&
  a.charged === b.charged;

/** Whether `m` has none of the {@link RARE} fields (as a messaging API message without a ttl or a customerMessageId). */
const plain = (m: StoredMessage) =>
  m.guid === null && m.trackinId === null && m.customerMessageId === null && m.content === '' && m.expiresAt === null && m.meta === null;

/**
 * `messages`, leased until `until`, as {@link HandedOverCopies}; `stepsTexts` are their `steps` as
 * JSON text, in order. The list is filled in order, never presized: V8 clones a list with holes
 * entry by entry, several times slower.
 */
export function encodeCopies(messages: readonly StoredMessage[], stepsTexts: readonly string[], until: number): unknown[] {
  const into: unknown[] = [];
  let k = 0;
  for (let i = 0; i < messages.length;) {
    const first = messages[i]!;
    let n = 1;
    while (i + n < messages.length && sameHead(first, messages[i + n]!)) n++;
    into[k++] = n;
    into[k++] = until;
    into[k++] = first.listId;
    into[k++] = first.accountId;
    into[k++] = first.kind;
    into[k++] = first.status;
    into[k++] = JSON.stringify(first.snapshot);
    into[k++] = first.routeRef;
    into[k++] = first.createdAt;
    into[k++] = first.updatedAt;
    into[k++] = first.dueAt;
    into[k++] = first.version;
    into[k++] = JSON.stringify(first.work);
    into[k++] = first.charged;
    for (const end = i + n; i < end; i++) {
      const m = messages[i]!;
      into[k++] = m.id;
      into[k++] = stepsTexts[i];
      into[k++] = m.cost;
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
