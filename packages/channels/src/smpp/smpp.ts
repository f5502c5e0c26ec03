import smpp from 'smpp';
import type { PDU, Session } from 'smpp';
import type {
  ChannelContext,
  ChannelDriver,
  ChannelId,
  Clock,
  FailureClass,
  InboundReport,
  OutboundAttempt,
  Receipt,
  SendResult,
  TimerHandle,
} from '@spillway/core';
import { inboundRefusedForGood, isPhoneCountry, systemClock } from '@spillway/core';
import { oldestFirst } from '@spillway/core/adapter';
import { concatUdh, splitSms } from './smpp-encoding.ts';
import { concatRefOf, payloadOf } from './smpp-concat.ts';
import { createMoReassembly } from './smpp-mo-reassembly.ts';
import { canonicalSmscId, parseReceiptText, receiptState, smppFailure } from './smpp-status.ts';
import { relativeValidity } from './smpp-validity.ts';
import { createLinkState } from './smpp-link.ts';

/** Options of {@link createSmppDriver}: the SMSC to bind to and the credentials. */
export interface SmppOptions {
  /** @default 'smpp' */
  name?: string;
  host: string;
  /** @default 2775 */
  port?: number;
  /** SMPP over TLS. @default false */
  tls?: boolean;
  systemId: string;
  password: string;
  systemType?: string;
  /**
   * How a long text travels: `udh` (a concatenation header in each part), `sar` (the `sar_*`
   * TLVs) or `payload` (the whole text in one `message_payload`; the SMSC splits it).
   * @default 'udh'
   */
  concatenation?: 'udh' | 'sar' | 'payload';
  /** Most `submit_sm` awaiting their response at once. @default 10 */
  window?: number;
  /** Segments per second the contract with the SMSC allows; over it, sends fail as throttled. @default unlimited */
  segmentsPerSecond?: number;
  /** @default 30000 */
  enquireLinkMs?: number;
  /** How long a request waits for its response (and a send for a bind or the window). @default 10000 */
  responseTimeoutMs?: number;
  /** Reconnect backoff: doubles from `initialMs` up to `maxMs`. @default { initialMs: 1000, maxMs: 30000 } */
  reconnect?: { initialMs?: number; maxMs?: number };
  /** Retry-After of a throttled send, seconds. @default 1 */
  throttleRetryAfterSeconds?: number;
  /** Classes of vendor `command_status` codes, over the SMPP 3.4 table. */
  errorClasses?: Readonly<Record<number, FailureClass>>;
  /** @default ['sms'] */
  channels?: readonly ChannelId[];
  /**
   * For this long after the driver starts, a receipt naming an id it does not know is deferred
   * (the SMSC delivers it again later) instead of reported: the engine may still hand over, with
   * `recover`, the attempts of a crashed process, among them multipart messages whose parts must
   * be counted together. @default 10000
   */
  unknownReceiptGraceMs?: number;
  /**
   * How the SMSC writes its message ids, as Kannel's `msg-id-type`: bit 0 set, `submit_sm_resp`
   * (and the `receipted_message_id` TLV) in hex; bit 1 set, the `id:` of the receipt text in hex;
   * a clear bit means decimal. When given, both are kept as the decimal digits of their value, so
   * a receipt finds its attempt (also after a restart) whichever form the SMSC used.
   * @default undefined: ids are compared as the SMSC wrote them
   */
  msgIdType?: 0 | 1 | 2 | 3;
  /**
   * Give each `submit_sm` the attempt's ttl as its `validity_period` (a relative time): the SMSC
   * stops trying when the engine stops waiting. `false` for an SMSC that refuses relative times.
   * @default true
   */
  validityPeriod?: boolean;
  /**
   * How long after its latest new part a long MO still missing parts is given up: what arrived is
   * delivered, each missing part marked `[part N of M missing]`. Until then its parts are answered
   * ESME_RX_T_APPN, so the SMSC keeps them. @default 300000 (5 minutes)
   */
  moPartsTimeoutMs?: number;
  /** Where the driver reports what it gave up on. @default console.warn */
  onWarning?: (message: string) => void;
  /**
   * The country (ISO 3166 alpha-2, e.g. `DE`) an MO's sender in national format is read in: a
   * `source_addr` of TON 2 (national), or of TON 0 (unknown) with a leading 0, becomes E.164
   * (`01511234567` is `491511234567`). TON 1 is E.164 already; TON 5 (alphanumeric) is kept.
   * @default undefined: such MOs are dropped, with a warning that names this setting
   */
  country?: string;
}

interface Outstanding {
  fail(error: string): void;
}

/** Parts of a multipart message, by SMSC message id: the message is delivered when every part is. */
interface PartGroup {
  /** The attempt's provider id: every part's id, space-separated. */
  key: string;
  waiting: Set<string>;
  done: boolean;
}

/** The answer that asks the SMSC to deliver a `deliver_sm` again later (ESME_RX_T_APPN). */
const TRY_LATER = 0x64;

/** How an MO's `source_addr_ton` says its sender is written (the others say nothing: TON 0, 3, 4, 6). */
const SENDER_FORMATS: Readonly<Record<number, InboundReport['phoneNumberFormat']>> = {
  1: 'international',
  2: 'national',
  5: 'alphanumeric',
};

const ESM_RECEIPT_MASK = 0x3c;
const ESM_UDHI = 0x40;
const MAX_GROUPED_PARTS = 100_000;

/**
 * SMS over SMPP 3.4 with the `smpp` package: one transceiver bind, kept alive with
 * `enquire_link` and re-established with backoff; `submit_sm` in GSM-7 or UCS-2, long texts
 * concatenated; delivery receipts (`deliver_sm`) reported by the SMSC message id, acknowledged
 * once the report is durable; other `deliver_sm` are MO messages, the parts of a long one (UDH or
 * `sar_*` TLVs) joined into one before they are handed over.
 *
 * @example createSmppDriver({ host: 'smsc.example.com', port: 2775, systemId: 'spillway', password: env.SMPP_PASSWORD })
 */
export function createSmppDriver(options: SmppOptions): ChannelDriver & { readonly bound: boolean } {
  const name = options.name ?? 'smpp';
  if (options.country !== undefined && !isPhoneCountry(options.country))
    throw new TypeError(`${name}: country "${options.country}" is no ISO 3166 alpha-2 code (such as DE)`);
  const window = Math.max(1, options.window ?? 10);
  const timeoutMs = options.responseTimeoutMs ?? 10_000;
  const enquireMs = options.enquireLinkMs ?? 30_000;
  const backoff = { initial: options.reconnect?.initialMs ?? 1000, max: options.reconnect?.maxMs ?? 30_000 };
  let clock: Clock = systemClock;
  let ctx: ChannelContext | null = null;
  let session: Session | null = null;
  let bound = false;
  let closed = false;
  let failures = 0;
  let lastError = 'not connected yet';
  let reconnectTimer: TimerHandle | null = null;
  let enquireTimer: TimerHandle | null = null;
  let boundWaiters: (() => void)[] = [];
  const outstanding = new Set<Outstanding>();
  const windowWaiters: (() => void)[] = [];
  const groups = new Map<string, PartGroup>();
  /** Single-part ids this driver sent or was handed by `recover`: their receipts are never deferred. */
  const known = new Set<string>();
  // Parts and ids whose receipt never comes must not pile up: the oldest are forgotten first.
  const oldestGroups = oldestFirst(groups);
  const oldestKnown = oldestFirst(known);
  const graceMs = options.unknownReceiptGraceMs ?? 10_000;
  let startedAt: number | null = null;
  let concatRef = Math.floor(Math.random() * 256);
  let tokens = options.segmentsPerSecond ?? 0;
  /** An id in the driver's one form (see `msgIdType`): from `submit_sm_resp`/the TLV, or from the receipt text. */
  const idOf = (id: string, from: 'submit' | 'text') =>
    options.msgIdType === undefined ? id : canonicalSmscId(id, (options.msgIdType & (from === 'submit' ? 1 : 2)) !== 0);
  let refilledAt = 0;
  const where = `${options.host}:${options.port ?? 2775}`;
  const link = createLinkState(name, `SMPP bind to ${where}`);
  /**
   * Hands an MO to the engine; resolves once it is durable, or once the engine refused it for good
   * (`inboundRefusedForGood`: the message itself is invalid, and the engine reported it): the
   * `deliver_sm` is then acknowledged and the message dropped, since the SMSC would deliver it
   * again for ever. Any other refusal rejects, and the SMSC is asked to deliver it again later.
   */
  async function inbound(report: InboundReport): Promise<void> {
    if (!ctx?.inbound) throw new Error('incoming messages are not handled');
    try {
      await ctx.inbound(report);
    } catch (error) {
      if (!inboundRefusedForGood(error)) throw error;
    }
  }
  const longMo = createMoReassembly({
    clock: () => clock,
    deliver: inbound,
    timeoutMs: options.moPartsTimeoutMs ?? 300_000,
    warn: options.onWarning ?? ((message) => console.warn(`[spillway] ${name}: ${message}`)),
  });

  function wakeBound(): void {
    const w = boundWaiters;
    boundWaiters = [];
    for (const wake of w) wake();
  }

  function connect(): void {
    if (closed || session) return;
    const s = smpp.connect({ host: options.host, port: options.port ?? 2775, tls: options.tls ?? false });
    session = s;
    s.on('connect', () => {
      s.bind_transceiver(
        { system_id: options.systemId, password: options.password, system_type: options.systemType ?? '', interface_version: 0x34 },
        (pdu) => {
          if (pdu.command_status === 0) {
            bound = true;
            failures = 0;
            // What a close without an error (the SMSC went away) is told as, from now on.
            lastError = 'the SMSC closed the connection';
            link.set(true, `bound to ${where} as ${options.systemId}`);
            armEnquireLink(s);
            wakeBound();
          } else {
            lastError = `bind refused: ${smppFailure(pdu.command_status).error}`;
            s.destroy();
          }
        },
      );
    });
    s.on('deliver_sm', (pdu: PDU) => void onDeliver(s, pdu));
    s.on('enquire_link', (pdu: PDU) => s.send(pdu.response()));
    s.on('unbind', (pdu: PDU) => {
      lastError = 'the SMSC unbound';
      s.send(pdu.response());
      s.close();
    });
    s.on('error', (error: Error) => {
      lastError = error.message;
    });
    s.on('close', () => onClosed(s));
  }

  function onClosed(s: Session): void {
    if (session !== s) return;
    session = null;
    bound = false;
    if (enquireTimer) clock.clearTimeout(enquireTimer);
    for (const o of [...outstanding]) o.fail(`connection to the SMSC lost (${lastError})`);
    if (closed) return;
    link.set(false, lastError);
    const delay = Math.min(backoff.max, backoff.initial * 2 ** failures);
    failures++;
    reconnectTimer = clock.setTimeout(() => {
      reconnectTimer = null;
      connect();
    }, delay);
  }

  function armEnquireLink(s: Session): void {
    enquireTimer = clock.setTimeout(() => {
      if (session !== s || !bound) return;
      request(s, 'enquire_link', {})
        .then(() => armEnquireLink(s))
        .catch((error: Error) => {
          // No answer: the link is dead, reconnect.
          lastError = error.message;
          s.destroy();
        });
    }, enquireMs);
  }

  /** Sends a request and resolves with its response; rejects on timeout or a lost connection. */
  function request(s: Session, command: string, fields: Record<string, unknown>): Promise<PDU> {
    return new Promise<PDU>((resolve, reject) => {
      const o: Outstanding = {
        fail: (error) => {
          outstanding.delete(o);
          clock.clearTimeout(timer);
          reject(new Error(error));
        },
      };
      const timer = clock.setTimeout(() => o.fail(`no ${command}_resp within ${timeoutMs} ms`), timeoutMs);
      outstanding.add(o);
      const pdu = new smpp.PDU(command, fields);
      const sent = s.send(pdu, (resp) => {
        outstanding.delete(o);
        clock.clearTimeout(timer);
        resolve(resp);
      });
      if (!sent) o.fail('the connection to the SMSC is not writable');
    });
  }

  async function whenBound(): Promise<Session | null> {
    if (bound && session) return session;
    // During a backoff the pending reconnect binds; otherwise connect now.
    if (!reconnectTimer) connect();
    await new Promise<void>((resolve) => {
      const timer = clock.setTimeout(resolve, timeoutMs);
      boundWaiters.push(() => {
        clock.clearTimeout(timer);
        resolve();
      });
    });
    return bound ? session : null;
  }

  async function takeWindow(): Promise<boolean> {
    if (outstanding.size < window) return true;
    return new Promise<boolean>((resolve) => {
      const timer = clock.setTimeout(() => {
        windowWaiters.splice(windowWaiters.indexOf(wake), 1);
        resolve(false);
      }, timeoutMs);
      const wake = () => {
        clock.clearTimeout(timer);
        resolve(true);
      };
      windowWaiters.push(wake);
    });
  }

  function releaseWindow(): void {
    windowWaiters.shift()?.();
  }

  /** Takes `parts` segments from the throughput bucket; the wait in seconds when it cannot. */
  function takeSegments(parts: number): number {
    const rate = options.segmentsPerSecond;
    if (!rate) return 0;
    const now = clock.now();
    tokens = Math.min(rate, tokens + ((now - refilledAt) / 1000) * rate);
    refilledAt = now;
    const need = Math.min(parts, rate);
    if (tokens >= need) {
      tokens -= need;
      return 0;
    }
    return Math.max(1, Math.ceil((need - tokens) / rate));
  }

  function addressing(from: string) {
    const alpha = /[^\d+]/.test(from);
    return {
      source_addr: from.replace(/^\+/, ''),
      source_addr_ton: alpha ? 5 : 1,
      source_addr_npi: alpha ? 0 : 1,
      dest_addr_ton: 1,
      dest_addr_npi: 1,
    };
  }

  async function submit(
    s: Session,
    fields: Record<string, unknown>,
  ): Promise<{ messageId: string } | Extract<SendResult, { outcome: 'failed' }>> {
    if (!(await takeWindow())) return { outcome: 'failed', failure: 'throttled', error: 'the SMPP window stayed full', retryAfter: 1 };
    try {
      const resp = await request(s, 'submit_sm', fields);
      if (resp.command_status !== 0) {
        const { failure, error } = smppFailure(resp.command_status, options.errorClasses);
        return {
          outcome: 'failed',
          failure,
          error,
          ...(failure === 'throttled' ? { retryAfter: options.throttleRetryAfterSeconds ?? 1 } : {}),
        };
      }
      return { messageId: String(resp['message_id']) };
    } catch (error) {
      return { outcome: 'failed', failure: 'temporary', error: (error as Error).message };
    } finally {
      releaseWindow();
    }
  }

  async function onDeliver(s: Session, pdu: PDU): Promise<void> {
    const esm = Number(pdu['esm_class'] ?? 0);
    const text = messageText(pdu);
    const receiptId = typeof pdu['receipted_message_id'] === 'string' ? pdu['receipted_message_id'] : undefined;
    let status = 0;
    try {
      if ((esm & ESM_RECEIPT_MASK) === 0x04 || receiptId) {
        const parsed = parseReceiptText(text);
        const id = receiptId !== undefined ? idOf(receiptId, 'submit') : parsed.id !== undefined ? idOf(parsed.id, 'text') : undefined;
        const stateTlv = typeof pdu['message_state'] === 'number' ? pdu['message_state'] : undefined;
        const state = receiptState(stateTlv ?? parsed.stat ?? '');
        if (id && state) {
          const error = state.outcome === 'failed' ? `${parsed.stat ?? 'failed'} (err:${parsed.err ?? '?'})` : undefined;
          const decision = receiptFor(id, { ...state, ...(error ? { error } : {}) });
          if (decision === 'later') status = TRY_LATER;
          else if (decision) await ctx?.report(decision);
        }
      } else if (ctx?.inbound) {
        const phoneNumber = String(pdu['source_addr']).replace(/^\+/, '');
        const alphaName = String(pdu['destination_addr']);
        // The engine reads a national sender in the country (or refuses it, naming the setting).
        const format = SENDER_FORMATS[Number(pdu['source_addr_ton'])];
        const sender = {
          phoneNumber,
          ...(format ? { phoneNumberFormat: format } : {}),
          ...(options.country ? { defaultCountry: options.country } : {}),
        };
        const concat = concatRefOf(pdu);
        if (!concat) await inbound({ channel: 'sms', ...sender, alphaName, text });
        else if ((await longMo.offer({ sender, alphaName, concat, payload: payloadOf(pdu) })) === 'later') status = TRY_LATER;
      }
    } catch {
      // Not durable: ESME_RX_T_APPN asks the SMSC to deliver it again later.
      status = 0x64;
    }
    if (session === s) s.send(pdu.response({ command_status: status }));
  }

  /**
   * What to do with the receipt of an SMSC message id: report it, acknowledge it silently (`null`),
   * or have the SMSC deliver it again later (`'later'`). A multipart message reports once, under
   * its attempt's id: failed at its first failed part, delivered at the last part delivered. Until
   * then each part's receipt is deferred, not acknowledged, so that after a restart the SMSC
   * delivers it again and the parts are counted anew (nothing about them is kept only in memory).
   */
  function receiptFor(id: string, state: Pick<Receipt, 'outcome' | 'failure' | 'error'>): Receipt | null | 'later' {
    const group = groups.get(id);
    if (!group) {
      const early = startedAt !== null && clock.now() - startedAt < graceMs;
      return known.has(id) || !early ? { providerMessageId: id, ...state } : 'later';
    }
    if (group.done) return null;
    group.waiting.delete(id);
    if (state.outcome === 'delivered' && group.waiting.size > 0) return 'later';
    group.done = true;
    return { providerMessageId: group.key, ...state };
  }

  /** Remembers the parts of a multipart attempt (its provider id lists them). */
  function groupOf(key: string): void {
    const parts = key.split(' ');
    if (parts.length < 2 || groups.has(parts[0]!)) return;
    const group: PartGroup = { key, waiting: new Set(parts), done: false };
    for (const part of parts) groups.set(part, group);
    oldestGroups.trimTo(MAX_GROUPED_PARTS);
  }

  function remember(id: string): void {
    known.add(id);
    oldestKnown.trimTo(MAX_GROUPED_PARTS);
  }

  function begin(c: ChannelContext): void {
    ctx = c;
    clock = c.clock;
    startedAt ??= clock.now();
  }

  return {
    name,
    channels: options.channels ?? ['sms'],
    get bound() {
      return bound;
    },
    watch: link.watch,
    async start(c) {
      begin(c);
      await whenBound();
    },
    async recover(pending, c) {
      // Receipts name the SMSC message ids kept with each attempt (every part's, for a multipart
      // message): the SMSC delivers them on the new bind, and the parts are counted again.
      begin(c);
      for (const p of pending) {
        if (!p.providerMessageId) continue;
        if (p.providerMessageId.includes(' ')) groupOf(p.providerMessageId);
        else remember(p.providerMessageId);
      }
      await whenBound();
    },
    async send(attempt: OutboundAttempt, c: ChannelContext): Promise<SendResult> {
      if (closed) return { outcome: 'failed', failure: 'temporary', error: `${name} is closed` };
      if (!ctx) begin(c);
      const { dataCoding, parts } =
        options.concatenation === 'payload' ? { ...splitSms(attempt.text), parts: [attempt.text] } : splitSms(attempt.text);
      const segments = options.concatenation === 'payload' ? splitSms(attempt.text).parts.length : parts.length;
      const wait = takeSegments(segments);
      if (wait > 0)
        return {
          outcome: 'failed',
          failure: 'throttled',
          error: `over ${options.segmentsPerSecond} segments per second`,
          retryAfter: wait,
        };
      const s = await whenBound();
      if (!s) return { outcome: 'failed', failure: 'temporary', error: `not bound to the SMSC: ${lastError}` };
      const base = {
        ...addressing(attempt.from),
        destination_addr: attempt.to.replace(/^\+/, ''),
        registered_delivery: 1,
        data_coding: dataCoding,
        ...(options.validityPeriod === false ? {} : { validity_period: relativeValidity(attempt.ttl) }),
      };
      const ids: string[] = [];
      const ref = (concatRef = (concatRef + 1) % 256);
      for (const [i, part] of parts.entries()) {
        const fields: Record<string, unknown> =
          options.concatenation === 'payload'
            ? { ...base, short_message: '', message_payload: part }
            : parts.length === 1
              ? { ...base, short_message: part }
              : options.concatenation === 'sar'
                ? { ...base, short_message: part, sar_msg_ref_num: ref, sar_total_segments: parts.length, sar_segment_seqnum: i + 1 }
                : { ...base, esm_class: ESM_UDHI, short_message: { udh: concatUdh(ref, parts.length, i + 1), message: part } };
        const result = await submit(s, fields);
        if ('outcome' in result)
          return ids.length ? { ...result, error: `${result.error} (after ${ids.length} of ${parts.length} parts)` } : result;
        ids.push(idOf(result.messageId, 'submit'));
      }
      // Every part's id is kept with the attempt, so the parts can be counted after a restart.
      const key = ids.join(' ');
      if (ids.length > 1) groupOf(key);
      else remember(key);
      return { outcome: 'accepted', providerMessageId: key };
    },
    async check() {
      const s = await whenBound();
      if (!s) return { ok: false, detail: `cannot bind to ${options.host}:${options.port ?? 2775}: ${lastError}` };
      try {
        await request(s, 'enquire_link', {});
        return { ok: true, detail: `bound to ${options.host}:${options.port ?? 2775} as ${options.systemId}; enquire_link answered` };
      } catch (error) {
        return { ok: false, detail: (error as Error).message };
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      if (reconnectTimer) clock.clearTimeout(reconnectTimer);
      if (enquireTimer) clock.clearTimeout(enquireTimer);
      longMo.close();
      wakeBound();
      const s = session;
      if (!s) return;
      if (bound) await request(s, 'unbind', {}).catch(() => undefined);
      await new Promise<void>((resolve) => {
        if (s.socket.destroyed) return resolve();
        s.socket.once('close', () => resolve());
        s.destroy();
      });
    },
  };
}

/** The text of a `deliver_sm`, from `short_message` or `message_payload`, decoded by the `smpp` package. */
function messageText(pdu: PDU): string {
  const value = (pdu['message_payload'] ?? pdu['short_message']) as { message?: unknown } | string | undefined;
  const message = typeof value === 'object' && value ? value.message : value;
  if (Buffer.isBuffer(message)) return message.toString('latin1');
  return typeof message === 'string' ? message : '';
}
