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
/** Fields of each message of a run. */
const EACH = 9;

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

/**
 * Appends `messages`, leased until `until`, to `into` (a list of {@link HandedOverCopies});
 * `stepsTexts` are their `steps` as JSON text, in order.
 */
export function encodeCopies(messages: readonly StoredMessage[], stepsTexts: readonly string[], until: number, into: unknown[]): void {
  for (let i = 0; i < messages.length;) {
    const first = messages[i]!;
    let n = 1;
    while (i + n < messages.length && sameHead(first, messages[i + n]!)) n++;
    into.push(
      n,
      until,
      first.listId,
      first.accountId,
      first.kind,
      first.status,
      JSON.stringify(first.snapshot),
      first.routeRef,
      first.createdAt,
      first.updatedAt,
      first.dueAt,
      first.version,
      JSON.stringify(first.work),
      first.charged,
    );
    for (let k = i; k < i + n; k++) {
      const m = messages[k]!;
      into.push(
        m.id,
        m.guid,
        m.trackinId,
        m.customerMessageId,
        m.content,
        stepsTexts[k],
        m.expiresAt,
        m.cost,
        m.meta === null ? null : JSON.stringify(m.meta),
      );
    }
    i += n;
  }
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
    for (let j = 0; j < n; j++, k += EACH) {
      copies.push({
        message: {
          id: v[k] as number,
          listId: v[head + 2] as number,
          accountId: v[head + 3] as number,
          kind: v[head + 4] as StoredMessage['kind'],
          guid: v[k + 1] as string | null,
          trackinId: v[k + 2] as string | null,
          customerMessageId: v[k + 3] as string | null,
          content: v[k + 4] as string,
          steps: JSON.parse(v[k + 5] as string) as StoredMessage['steps'],
          status: v[head + 5] as StoredMessage['status'],
          snapshot,
          routeRef: v[head + 7] as string | null,
          createdAt: v[head + 8] as number,
          updatedAt: v[head + 9] as number,
          dueAt: v[head + 10] as number,
          expiresAt: v[k + 6] as number | null,
          cost: v[k + 7] as number,
          meta: v[k + 8] === null ? null : (JSON.parse(v[k + 8] as string) as StoredMessage['meta']),
          version: v[head + 11] as number,
          work,
          charged: v[head + 13] as number,
        },
        until,
      });
    }
  }
  return copies;
}
