import type { Clock, InboundReport, TimerHandle } from '@spillway/core';
import { oldestFirst } from '@spillway/core/adapter';
import { decodePayload } from './smpp-concat.ts';
import type { ConcatRef, Payload, PayloadCoding } from './smpp-concat.ts';

/** The sender of an MO as the driver reports it: the number and how it is written. */
export type MoSender = Pick<InboundReport, 'phoneNumber' | 'phoneNumberFormat' | 'defaultCountry'>;

/** One part of a long MO, as a `deliver_sm` brought it. */
export interface MoPart {
  sender: MoSender;
  alphaName: string;
  concat: ConcatRef;
  payload: Payload;
}

/** How to answer the `deliver_sm` of a part: acknowledge it, or have the SMSC deliver it again later. */
export type PartAnswer = 'ack' | 'later';

/** Options of {@link createMoReassembly}. */
export interface MoReassemblyOptions {
  /** The driver's clock (the engine's, once it started the driver). */
  clock: () => Clock;
  /** Hands a message to the engine; resolves once it is durable. */
  deliver: (report: InboundReport) => Promise<void>;
  /** How long after its latest new part an incomplete message is given up. */
  timeoutMs: number;
  warn: (message: string) => void;
}

interface Group {
  key: string;
  sender: MoSender;
  alphaName: string;
  concat: ConcatRef;
  parts: Map<number, Payload>;
  timer: TimerHandle | null;
}

const sameCoding = (a: PayloadCoding, b: PayloadCoding) =>
  a.kind === b.kind && (a.kind !== 'gsm7' || (b.kind === 'gsm7' && a.table === b.table));

/** Parts held for incomplete messages, at most: past it the oldest messages are forgotten (the SMSC still holds their parts). */
const MAX_HELD_PARTS = 20_000;
/** Delivered messages whose parts are still recognised when the SMSC delivers them again. */
const MAX_DELIVERED = 10_000;

/**
 * Joins the parts of long MO messages, per sender, address and reference, into one incoming
 * message.
 *
 * Nothing is acknowledged before it is durable: a part is answered `later` (ESME_RX_T_APPN, the
 * SMSC keeps it and delivers it again) until the whole message has been handed to the engine,
 * which the part completing it waits for. The parts held here are a copy of what the SMSC still
 * holds, so a restart loses none of them: the SMSC delivers them to the next process. Each answer
 * is given at once, so an SMSC with a window of one is never stalled waiting for one.
 *
 * Parts the SMSC delivers again after the message was handed over are recognised (same place,
 * same octets) and acknowledged without a second message. An incomplete message is given up
 * `timeoutMs` after its latest new part: what arrived is delivered with each missing part marked
 * `[part N of M missing]`, and a warning logged.
 *
 * Parts are held per process. When several processes bind to one SMSC account and the SMSC spreads
 * a message's parts over their binds, none of them may see it whole: each delivers what it holds
 * as a fragment once `timeoutMs` is over; and when a retry of a part reaches another bind than
 * before, one process delivers the whole message and another a copy (whole, or a fragment after
 * `timeoutMs`). The warning says so.
 */
export function createMoReassembly(options: MoReassemblyOptions) {
  const pending = new Map<string, Group>();
  /** Octets of each part of the messages handed over, by key. */
  const delivered = new Map<string, Map<number, Buffer>>();
  const oldestDelivered = oldestFirst(delivered);
  let held = 0;
  const oldestPending = oldestFirst({
    get size() {
      return pending.size;
    },
    keys: () => pending.keys(),
    delete: (key: string) => {
      const group = pending.get(key);
      if (group) forget(group);
      return group !== undefined;
    },
  });
  /** The work on one message, one part at a time: a part may come while another is handed over. */
  const busy = new Map<string, Promise<void>>();

  function serially<T>(key: string, run: () => Promise<T>): Promise<T> {
    const result = (busy.get(key) ?? Promise.resolve()).then(run);
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    busy.set(key, settled);
    void settled.then(() => {
      if (busy.get(key) === settled) busy.delete(key);
    });
    return result;
  }

  function forget(group: Group): void {
    if (pending.get(group.key) !== group) return;
    pending.delete(group.key);
    held -= group.parts.size;
    if (group.timer) options.clock().clearTimeout(group.timer);
  }

  function arm(group: Group): void {
    const clock = options.clock();
    if (group.timer) clock.clearTimeout(group.timer);
    group.timer = clock.setTimeout(() => {
      serially(group.key, () => giveUp(group)).catch(() => undefined);
    }, options.timeoutMs);
  }

  /**
   * The text of the parts in order: the octets of consecutive parts in one coding decoded together
   * (a character may straddle two parts), each missing part marked.
   */
  function textOf(group: Group): string {
    let text = '';
    let run: Payload[] = [];
    const flush = () => {
      if (run.length) text += decodePayload(Buffer.concat(run.map((p) => p.octets)), run[0]!.coding);
      run = [];
    };
    for (let seq = 1; seq <= group.concat.total; seq++) {
      const part = group.parts.get(seq);
      if (run.length && (!part || !sameCoding(part.coding, run[0]!.coding))) flush();
      if (part) run.push(part);
      else text += `[part ${seq} of ${group.concat.total} missing]`;
    }
    flush();
    return text;
  }

  /** Hands the message over; once durable, its parts are remembered as delivered. */
  async function handOver(group: Group): Promise<boolean> {
    try {
      await options.deliver({ channel: 'sms', ...group.sender, alphaName: group.alphaName, text: textOf(group) });
    } catch {
      return false;
    }
    forget(group);
    delivered.delete(group.key);
    delivered.set(group.key, new Map([...group.parts].map(([seq, p]) => [seq, p.octets])));
    oldestDelivered.trimTo(MAX_DELIVERED);
    return true;
  }

  async function giveUp(group: Group): Promise<void> {
    if (pending.get(group.key) !== group) return;
    const missing = [...Array(group.concat.total).keys()].map((i) => i + 1).filter((seq) => !group.parts.has(seq));
    // Not durable (or refused, as when no account owns the address): tried again after the same wait.
    if (!(await handOver(group))) return arm(group);
    if (missing.length === 0) return; // complete, but the engine refused it when its last part came
    // What to do about it: the usual cause besides a late SMSC is parts spread over several binds.
    options.warn(
      `long MO from ${group.sender.phoneNumber} to ${group.alphaName} (reference ${group.concat.ref}) given up: part ` +
        `${missing.join(', ')} of ${group.concat.total} did not reach this bind within ${options.timeoutMs} ms ` +
        `(moPartsTimeoutMs); delivered the ${group.parts.size} that did, each gap marked. If other processes bind to the ` +
        `same SMSC account, the SMSC may have given the missing parts to one of them, which delivers the message (or ` +
        `its own fragment) too: have the SMSC deliver MO to one bind only, or every part of a message on the same bind. ` +
        `Otherwise the SMSC did not send them in time: raise moPartsTimeoutMs if its parts come late.`,
    );
  }

  return {
    /** Takes a part: `ack` once the message it belongs to is durable, `later` until then. */
    offer(part: MoPart): Promise<PartAnswer> {
      const { concat } = part;
      const key = `${part.sender.phoneNumber}\n${part.alphaName}\n${concat.scheme}:${concat.ref}:${concat.total}`;
      return serially(key, async () => {
        if (delivered.get(key)?.get(concat.seq)?.equals(part.payload.octets)) return 'ack';
        let group = pending.get(key);
        if (!group) {
          group = { key, sender: part.sender, alphaName: part.alphaName, concat, parts: new Map(), timer: null };
          pending.set(key, group);
        }
        const had = group.parts.get(concat.seq);
        if (!had?.octets.equals(part.payload.octets)) {
          if (!had) held++;
          group.parts.set(concat.seq, part.payload);
          // The deadline runs from the latest new part: the SMSC's retries of held parts do not put it off.
          arm(group);
          while (held > MAX_HELD_PARTS && pending.size > 1) oldestPending.trimTo(pending.size - 1);
        }
        if (group.parts.size < concat.total) return 'later';
        return (await handOver(group)) ? 'ack' : 'later';
      });
    },
    /** Stops the timers; what is held is still with the SMSC. */
    close(): void {
      for (const group of [...pending.values()]) forget(group);
    },
  };
}
