import { timingSafeEqual } from 'node:crypto';
import type { ChannelDriver, ChannelId, FailureClass, Receipt, SendResult } from '@spillway/core';

/**
 * Options of {@link createBeaconDriver}, a driver for "Beacon SMS": a made-up SMS provider with
 * a small REST API, standing for whatever provider you need to plug in.
 *
 * - `POST {baseUrl}/v1/messages` with `Authorization: Bearer {apiToken}` and
 *   `{ to, from, body, reference, callback_url }` answers `202 { id, state: 'queued' }`;
 *   `429` (with `Retry-After`), `5xx`, `401`, or `400 { code }` otherwise.
 * - Later it posts `{ id, state: 'delivered' | 'failed', reason? }` to `callback_url` with
 *   `Authorization: Bearer {callbackToken}`.
 */
export interface BeaconDriverOptions {
  /** @default 'beacon' */
  name?: string;
  baseUrl: string;
  apiToken: string;
  /** The token Beacon sends with its delivery reports. */
  callbackToken: string;
  /**
   * Where Beacon posts delivery reports: the driver's route, `{public origin}/channels/{name}/dlr`.
   * A function, because the origin is known once the server listens.
   */
  callbackUrl: () => string;
  /** @default ['sms'] */
  channels?: ChannelId[];
  /** @default 10000 */
  timeoutMs?: number;
}

/** Beacon's failure reasons in a delivery report, mapped to the engine's failure classes. */
const REASONS: Record<string, FailureClass> = {
  unreachable: 'undeliverable',
  expired: 'undeliverable',
  blocked: 'permanent',
  rejected: 'permanent',
};

/** Beacon's `400` codes: the number itself is wrong or cannot take SMS. */
const REFUSALS: Record<string, FailureClass> = {
  invalid_number: 'permanent',
  landline: 'not_on_channel',
};

/**
 * A channel driver for Beacon SMS: hands each attempt to the provider (acceptance is never
 * delivery) and turns its delivery reports into receipts. Vendor statuses are mapped to the
 * engine's outcomes here, at the edge, and nowhere else.
 */
export function createBeaconDriver(options: BeaconDriverOptions): ChannelDriver {
  const name = options.name ?? 'beacon';
  let closed = false;

  async function send(attempt: Parameters<ChannelDriver['send']>[0]): Promise<SendResult> {
    if (closed) return { outcome: 'failed', failure: 'temporary', error: 'the Beacon driver is closed' };
    let res: Response;
    try {
      res = await fetch(new URL('/v1/messages', options.baseUrl), {
        method: 'POST',
        headers: { authorization: `Bearer ${options.apiToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          to: attempt.to,
          from: attempt.from,
          body: attempt.text ?? '',
          // Beacon drops a second message with the same reference: a send repeated after a crash is not sent twice.
          reference: attempt.idempotencyKey,
          callback_url: options.callbackUrl(),
        }),
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
    } catch (error) {
      return { outcome: 'failed', failure: 'temporary', error: `Beacon unreachable: ${(error as Error).message}` };
    }
    const answer = (await res.json().catch(() => ({}))) as { id?: string; code?: string; message?: string };
    if (res.status === 202 && answer.id) return { outcome: 'accepted', providerMessageId: answer.id };
    const error = `Beacon answered ${res.status}${answer.code ? ` ${answer.code}` : ''}${answer.message ? `: ${answer.message}` : ''}`;
    if (res.status === 429) {
      const retryAfter = Number(res.headers.get('retry-after') ?? Number.NaN);
      return { outcome: 'failed', failure: 'throttled', error, ...(retryAfter >= 0 ? { retryAfter } : {}) };
    }
    if (res.status >= 500 || res.status === 408) return { outcome: 'failed', failure: 'temporary', error };
    if (res.status === 400 && answer.code && REFUSALS[answer.code]) return { outcome: 'failed', failure: REFUSALS[answer.code]!, error };
    return { outcome: 'failed', failure: 'permanent', error };
  }

  return {
    name,
    channels: options.channels ?? ['sms'],
    send,
    routes: [
      {
        method: 'POST',
        path: '/dlr',
        async handle(request, ctx) {
          if (!sameToken(request.headers.get('authorization'), `Bearer ${options.callbackToken}`)) {
            return Response.json({ error: 'unauthorized', message: 'Wrong callback token', status: 401 }, { status: 401 });
          }
          const report = (await request.json().catch(() => null)) as { id?: unknown; state?: unknown; reason?: unknown } | null;
          if (!report || typeof report.id !== 'string' || (report.state !== 'delivered' && report.state !== 'failed')) {
            return Response.json(
              { error: 'bad_request', message: 'Expected { id, state: delivered | failed }', status: 400 },
              { status: 400 },
            );
          }
          const reason = typeof report.reason === 'string' ? report.reason : 'unknown';
          const receipt: Receipt =
            report.state === 'delivered'
              ? { providerMessageId: report.id, outcome: 'delivered' }
              : {
                  providerMessageId: report.id,
                  outcome: 'failed',
                  failure: REASONS[reason] ?? 'undeliverable',
                  error: `Beacon: ${reason}`,
                };
          // Acknowledge only once the receipt is durable: Beacon retries unacknowledged reports.
          await ctx.report(receipt);
          return new Response(null, { status: 204 });
        },
      },
    ],
    async check() {
      const res = await fetch(new URL('/v1/account', options.baseUrl), { headers: { authorization: `Bearer ${options.apiToken}` } }).catch(
        () => null,
      );
      return res?.ok
        ? { ok: true, detail: 'Beacon accepts the API token' }
        : { ok: false, detail: `Beacon answered ${res?.status ?? 'nothing'}` };
    },
    async close() {
      closed = true;
    },
  };
}

function sameToken(given: string | null, expected: string): boolean {
  const a = Buffer.from(given ?? '');
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
