import type { ChannelContext, ChannelDriver, ChannelId, DriverRoute, OutboundAttempt, SendResult } from '@spillway/core';
import { countSegments, inboundRefusedForGood, isPhoneCountry } from '@spillway/core';
import { callbackToken, jsonError, verifyCallbackToken } from '../shared/callback-token.ts';
import { moText } from './kannel-mo.ts';
import { DEFAULT_DLR_MASK, dlrOutcome, sendsmsOutcome } from './kannel-status.ts';

/** Options of {@link createKannelDriver}: the Kannel `sendsms` endpoint, its credentials and the delivery-report URL. */
export interface KannelOptions {
  /** Driver name, also the callback path `/channels/{name}/dlr`. @default 'kannel' */
  name?: string;
  /** smsbox's sendsms URL, e.g. `http://127.0.0.1:13013/cgi-bin/sendsms`. */
  sendsmsUrl: string;
  /** A `sendsms-user` of smsbox. */
  username: string;
  password: string;
  /**
   * Spillway's public origin as Kannel reaches it; delivery reports come back to
   * `{callbackBaseUrl}/channels/{name}/dlr`.
   */
  callbackBaseUrl: string | (() => string);
  /**
   * Signs the DLR URLs handed to Kannel. Keep it stable across restarts, or reports of messages
   * sent before a restart are refused. @default derived from `password`
   */
  callbackSecret?: string;
  /** @default 27 (delivered, not delivered, accepted and rejected by the SMSC) */
  dlrMask?: number;
  /** Forces an `smsc` id of bearerbox's routing. */
  smsc?: string;
  /** @default 10000 */
  timeoutMs?: number;
  /** @default ['sms'] */
  channels?: readonly ChannelId[];
  /** For tests and proxies. @default globalThis.fetch */
  fetch?: typeof fetch;
  /**
   * The country (ISO 3166 alpha-2, e.g. `DE`) an MO's sender written in national format is read
   * in: smsbox passes the sender as the SMSC wrote it (`%p`), and one with a single leading 0
   * (`01511234567`) becomes E.164 (`491511234567`).
   * @default undefined: such MOs are dropped, with a warning that names this setting
   */
  country?: string;
}

/** Options of {@link kannelMoUrl}: the same values the Kannel driver is configured with. */
export interface KannelMoUrlOptions {
  /**
   * The driver's name: its key under `drivers` in the server's config, or the `name` given to
   * {@link createKannelDriver}. The URL's path is `/channels/{name}/mo`, so a driver not called
   * `kannel` needs it here, or smsbox's MO requests find no route (404). @default 'kannel'
   */
  name?: string;
  /** Spillway's public origin as Kannel reaches it (the driver's `callbackBaseUrl`). */
  callbackBaseUrl: string | (() => string);
  /** The driver's `callbackSecret`, which signs the URL, when it has one. */
  callbackSecret?: string;
  /** The driver's `password`: it signs the URL when there is no `callbackSecret`. */
  password: string;
}

/**
 * The `get-url` of smsbox's `sms-service` that hands MO messages to a Kannel driver's `/mo` route:
 * `{callbackBaseUrl}/channels/{name}/mo?sig=...&from=%p&to=%P&text=%b&coding=%c&charset=%C`. The
 * text goes as its bytes with their coding and charset, so that UCS-2 and runs of spaces arrive
 * as written, with or without smsbox's `mo-recode` (see {@link moText}). A URL made by an older
 * release (`text=%a`) still works, for UTF-8 and GSM texts as before.
 *
 * @example kannelMoUrl({ name: 'kannel', callbackBaseUrl: 'https://spillway.example.com', password }) // put in kannel.conf
 */
export function kannelMoUrl(options: KannelMoUrlOptions): string {
  const secret = options.callbackSecret ?? `kannel-dlr:${options.password}`;
  const base = (typeof options.callbackBaseUrl === 'function' ? options.callbackBaseUrl() : options.callbackBaseUrl).replace(/\/+$/, '');
  return `${base}/channels/${options.name ?? 'kannel'}/mo?sig=${callbackToken(secret, 'mo')}&from=%p&to=%P&text=%b&coding=%c&charset=%C`;
}

/**
 * SMS through a Kannel gateway: each attempt is one `sendsms` request whose `dlr-url` points back
 * at this driver's `/dlr` route, signed, and carrying the message id and step, so a report that
 * arrives after a restart still finds its attempt. DLR types are mapped to receipts in
 * {@link dlrOutcome}.
 *
 * @example createKannelDriver({ sendsmsUrl: 'http://kannel:13013/cgi-bin/sendsms', username: 'spillway', password: env.KANNEL_PASSWORD, callbackBaseUrl: 'https://spillway.example.com' })
 */
export function createKannelDriver(options: KannelOptions): ChannelDriver {
  const name = options.name ?? 'kannel';
  if (options.country !== undefined && !isPhoneCountry(options.country))
    throw new TypeError(`${name}: country "${options.country}" is no ISO 3166 alpha-2 code (such as DE)`);
  const secret = options.callbackSecret ?? `kannel-dlr:${options.password}`;
  const doFetch = options.fetch ?? globalThis.fetch;
  const base = () =>
    (typeof options.callbackBaseUrl === 'function' ? options.callbackBaseUrl() : options.callbackBaseUrl).replace(/\/+$/, '');
  let closed = false;
  const inflight = new Set<AbortController>();

  function dlrUrl(a: OutboundAttempt): string {
    const sig = callbackToken(secret, a.messageId, a.step);
    // %d (DLR type) and %A (the SMSC's answer) are filled in by Kannel.
    return `${base()}/channels/${name}/dlr?m=${a.messageId}&s=${a.step}&sig=${sig}&type=%d&reply=%A`;
  }

  async function request(params: URLSearchParams): Promise<Response> {
    const controller = new AbortController();
    inflight.add(controller);
    const timer = setTimeout(
      () => controller.abort(new Error(`no answer from Kannel within ${options.timeoutMs ?? 10_000} ms`)),
      options.timeoutMs ?? 10_000,
    );
    try {
      return await doFetch(`${options.sendsmsUrl}?${params.toString()}`, { signal: controller.signal });
    } finally {
      clearTimeout(timer);
      inflight.delete(controller);
    }
  }

  const dlrRoute: DriverRoute = {
    method: 'GET',
    path: '/dlr',
    async handle(req: Request, ctx: ChannelContext): Promise<Response> {
      const q = new URL(req.url).searchParams;
      const messageId = Number(q.get('m'));
      const step = Number(q.get('s'));
      const type = Number(q.get('type'));
      if (!Number.isSafeInteger(messageId) || !Number.isSafeInteger(step) || !Number.isInteger(type) || type <= 0) {
        return jsonError(400, 'bad_request', 'expected m, s (integers) and type (a DLR type)');
      }
      if (!verifyCallbackToken(secret, q.get('sig'), messageId, step)) return jsonError(403, 'forbidden', 'bad signature');
      const outcome = dlrOutcome(type, q.get('reply') ?? '');
      // Kannel retries a DLR URL that fails: answer success only once the receipt is durable.
      if (outcome) await ctx.report({ messageId, step, ...outcome });
      return new Response('ok', { status: 200 });
    },
  };

  const moRoute: DriverRoute = {
    method: 'GET',
    path: '/mo',
    async handle(req: Request, ctx: ChannelContext): Promise<Response> {
      const url = new URL(req.url);
      const q = url.searchParams;
      if (!verifyCallbackToken(secret, q.get('sig'), 'mo')) return jsonError(403, 'forbidden', 'bad signature');
      const from = q.get('from');
      const to = q.get('to');
      if (!from || !to) return jsonError(400, 'bad_request', 'expected from and to');
      if (!ctx.inbound) return jsonError(501, 'not_implemented', 'incoming messages are not handled here');
      try {
        // `to` as Kannel names it (`+` or not): the engine finds its owner however a number is spelled;
        // and reads a sender with a leading 0 in the country (or refuses it, naming the setting).
        const country = options.country ? { defaultCountry: options.country } : {};
        await ctx.inbound({ channel: 'sms', phoneNumber: from.replace(/^\+/, ''), ...country, alphaName: to, text: moText(url) });
      } catch (error) {
        // Refused for good (the message itself is invalid; the engine reported it): taken and
        // dropped, as no retry of smsbox can change it. Any other refusal fails, and smsbox retries.
        if (!inboundRefusedForGood(error)) throw error;
      }
      // An empty body: smsbox sends no reply SMS.
      return new Response('', { status: 200 });
    },
  };

  return {
    name,
    channels: options.channels ?? ['sms'],
    routes: [dlrRoute, moRoute],
    async send(attempt: OutboundAttempt): Promise<SendResult> {
      if (closed) return { outcome: 'failed', failure: 'temporary', error: `${name} is closed` };
      const params = new URLSearchParams({
        username: options.username,
        password: options.password,
        from: attempt.from,
        to: attempt.to,
        text: attempt.text,
        charset: 'UTF-8',
        'dlr-mask': String(options.dlrMask ?? DEFAULT_DLR_MASK),
        'dlr-url': dlrUrl(attempt),
        // Minutes; the SMSC drops the message when the attempt's ttl is over.
        validity: String(Math.max(1, Math.ceil(attempt.ttl / 60))),
      });
      if (countSegments(attempt.text).encoding === 'UCS-2') params.set('coding', '2');
      if (options.smsc) params.set('smsc', options.smsc);
      try {
        const res = await request(params);
        return sendsmsOutcome(res.status, await res.text());
      } catch (error) {
        return { outcome: 'failed', failure: 'temporary', error: `Kannel unreachable: ${(error as Error).message}` };
      }
    },
    async check() {
      // An empty receiver is refused after authentication: 400 means the credentials work.
      try {
        const res = await request(new URLSearchParams({ username: options.username, password: options.password, to: '', text: '' }));
        const body = (await res.text()).trim();
        if (res.status === 403) return { ok: false, detail: `sendsms refused the credentials: ${body}` };
        // The probe's own refusal: said as what it means, not as a bare 400 beside "ok".
        if (res.status === 400) return { ok: true, detail: `sendsms accepted the credentials (its answer to an empty probe: ${body})` };
        return { ok: res.status < 500, detail: `sendsms answered ${res.status}: ${body}` };
      } catch (error) {
        return { ok: false, detail: `Kannel unreachable: ${(error as Error).message}` };
      }
    },
    async close() {
      closed = true;
      for (const c of inflight) c.abort(new Error(`${name} closed`));
    },
  };
}
