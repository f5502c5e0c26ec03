import { Webhook } from 'standardwebhooks';
import type { ChannelContext, ChannelDriver, ChannelId, DriverRoute, OutboundAttempt, SendResult } from '@spillway/core';
import { jsonError } from '../shared/callback-token.ts';
import { fetchKeepingMethod } from './fetch-keeping-method.ts';
import { parseWebhookReceipt, webhookCheckOutcome, webhookSendOutcome } from './webhook-status.ts';

/** Why a send answered with a 301, 302 or 303 failed: it asks for a GET without the body, which sends nothing. */
const notFollowed = (status: number, location: string) =>
  `redirected with ${status} to ${location}: sends follow only 307 and 308 redirects, which keep the POST and its body (set the driver's url to where the endpoint is)`;

/** Options of {@link createWebhookDriver}: the provider's endpoint and the secret that signs requests and receipts. */
export interface WebhookDriverOptions {
  /** Driver name, also the callback path `/channels/{name}/receipts`. @default 'webhook' */
  name?: string;
  /** The endpoint each attempt is POSTed to. */
  url: string;
  /** Standard Webhooks secret (`whsec_...`): signs what is sent and verifies the receipts posted back. */
  secret: string;
  /** Verifies receipts with another secret than the one that signs attempts. @default `secret` */
  receiptSecret?: string;
  /** When set, each attempt names the receipt URL: `{callbackBaseUrl}/channels/{name}/receipts`. */
  callbackBaseUrl?: string | (() => string);
  /** @default ['sms'] */
  channels?: readonly ChannelId[];
  /** More headers (an API key of the endpoint). */
  headers?: Record<string, string>;
  /** @default 10000 */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/**
 * A generic HTTP driver: POSTs each attempt as JSON to `url`, signed the Standard Webhooks way
 * with the attempt's idempotency key as `webhook-id` (also sent as `Idempotency-Key`), and takes
 * receipts on a signed callback route. Plugs in a provider Spillway has no driver for.
 *
 * @example createWebhookDriver({ url: 'https://sms-adapter.internal/send', secret: env.WEBHOOK_SECRET, callbackBaseUrl: 'https://spillway.example.com' })
 */
export function createWebhookDriver(options: WebhookDriverOptions): ChannelDriver {
  const name = options.name ?? 'webhook';
  const signer = new Webhook(options.secret);
  const verifier = new Webhook(options.receiptSecret ?? options.secret);
  const doFetch = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const callbackBase = options.callbackBaseUrl;
  const callbackUrl = () =>
    callbackBase === undefined
      ? undefined
      : `${(typeof callbackBase === 'function' ? callbackBase() : callbackBase).replace(/\/+$/, '')}/channels/${name}/receipts`;
  const inflight = new Set<AbortController>();
  let closed = false;

  const receipts: DriverRoute = {
    method: 'POST',
    path: '/receipts',
    async handle(req: Request, ctx: ChannelContext): Promise<Response> {
      const raw = await req.text();
      let body: unknown;
      try {
        // Verifies the signature, then parses the JSON.
        body = verifier.verify(raw, {
          'webhook-id': req.headers.get('webhook-id') ?? '',
          'webhook-timestamp': req.headers.get('webhook-timestamp') ?? '',
          'webhook-signature': req.headers.get('webhook-signature') ?? '',
        });
      } catch (error) {
        if (error instanceof SyntaxError) return jsonError(400, 'bad_request', 'the body is not JSON');
        return jsonError(401, 'unauthorized', `bad webhook signature: ${(error as Error).message}`);
      }
      const receipt = parseWebhookReceipt(body);
      if (typeof receipt === 'string') return jsonError(400, 'bad_request', receipt);
      // Answer success only once the receipt is durable: the endpoint retries otherwise.
      await ctx.report(receipt);
      return new Response(null, { status: 204 });
    },
  };

  return {
    name,
    channels: options.channels ?? ['sms'],
    routes: [receipts],
    async send(attempt: OutboundAttempt, ctx: ChannelContext): Promise<SendResult> {
      if (closed) return { outcome: 'failed', failure: 'temporary', error: `${name} is closed` };
      const body = JSON.stringify({
        type: 'message.attempt',
        idempotencyKey: attempt.idempotencyKey,
        messageId: attempt.messageId,
        step: attempt.step,
        try: attempt.try,
        accountId: attempt.accountId,
        channel: attempt.channel,
        messageType: attempt.type,
        from: attempt.from,
        to: attempt.to,
        text: attempt.text,
        ...(attempt.messageData !== undefined ? { messageData: attempt.messageData } : {}),
        ttl: attempt.ttl,
        partsCount: attempt.partsCount,
        ...(callbackBase !== undefined ? { callbackUrl: callbackUrl() } : {}),
      });
      const now = ctx.clock.now();
      const controller = new AbortController();
      inflight.add(controller);
      const timer = setTimeout(() => controller.abort(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      try {
        const { response: res, redirectedTo } = await fetchKeepingMethod(doFetch, options.url, {
          method: 'POST',
          signal: controller.signal,
          headers: {
            ...options.headers,
            'content-type': 'application/json',
            'idempotency-key': attempt.idempotencyKey,
            'webhook-id': attempt.idempotencyKey,
            'webhook-timestamp': String(Math.floor(now / 1000)),
            'webhook-signature': signer.sign(attempt.idempotencyKey, new Date(now), body),
          },
          body,
        });
        if (redirectedTo !== undefined) {
          await res.body?.cancel();
          return { outcome: 'failed', failure: 'temporary', error: `the endpoint ${notFollowed(res.status, redirectedTo)}` };
        }
        const text = await res.text();
        let parsed: unknown = null;
        try {
          parsed = text ? JSON.parse(text) : null;
        } catch {
          parsed = { error: text.slice(0, 200) };
        }
        return webhookSendOutcome(res.status, parsed, res.headers.get('retry-after'), now);
      } catch (error) {
        return { outcome: 'failed', failure: 'temporary', error: `the endpoint is unreachable: ${(error as Error).message}` };
      } finally {
        clearTimeout(timer);
        inflight.delete(controller);
      }
    },
    async check() {
      try {
        // Redirects as a send meets them: a 301, 302 or 303 fails every send.
        const { response, url, redirectedTo } = await fetchKeepingMethod(doFetch, options.url, {
          method: 'HEAD',
          signal: AbortSignal.timeout(timeoutMs),
        });
        await response.body?.cancel();
        if (redirectedTo !== undefined) return { ok: false, detail: `${url} ${notFollowed(response.status, redirectedTo)}` };
        return webhookCheckOutcome(url, response.status);
      } catch (error) {
        return { ok: false, detail: `${options.url} is unreachable: ${(error as Error).message}` };
      }
    },
    async close() {
      closed = true;
      for (const c of inflight) c.abort(new Error(`${name} closed`));
    },
  };
}
