import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ChannelContext, ChannelDriver, DriverRoute, OutboundAttempt, SendResult } from '@spillway/core';
import { jsonError } from '../shared/callback-token.ts';
import { viberReceipt, viberSendOutcome } from './viber-status.ts';

/** Options of {@link createViberDriver}. */
export interface ViberOptions {
  /** @default 'viber' */
  name?: string;
  /** @default 'https://chatapi.viber.com/pa' */
  apiUrl?: string;
  /** The bot's token when attempts carry none (the client's own comes as `X-Viber-Auth-Token`). */
  botToken?: string;
  /** More tokens whose callbacks are accepted (every client bot whose webhook points here). */
  callbackTokens?: readonly string[];
  /** The Viber user id of a recipient (the bot-receiver binding). @default `messageData.receiver`, else `to` */
  resolveReceiver?: (attempt: OutboundAttempt) => Promise<string | null> | string | null;
  /** @default 10000 */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** `X-Viber-Content-Signature`: HMAC-SHA256 of the raw body keyed with the bot's token, hex. */
export function viberSignature(token: string, body: string): string {
  return createHmac('sha256', token).update(body).digest('hex');
}

/**
 * The chat-app bot channel on the Viber REST bot API: `send_message` (text, or a picture for
 * `messageData.media`, with `messageData.keyboard`), and a callback route taking `delivered`,
 * `seen` and `failed` events (and incoming messages), verified by `X-Viber-Content-Signature`.
 * Set each bot's webhook (`set_webhook`) to `{public url}/channels/{name}/callback`.
 */
export function createViberDriver(options: ViberOptions = {}): ChannelDriver {
  const name = options.name ?? 'viber';
  const api = (options.apiUrl ?? 'https://chatapi.viber.com/pa').replace(/\/+$/, '');
  const doFetch = options.fetch ?? globalThis.fetch;
  // Tokens whose callbacks verify: configured ones, and those this process sent with.
  const tokens = new Set<string>([...(options.botToken ? [options.botToken] : []), ...(options.callbackTokens ?? [])]);
  let closed = false;

  function verified(body: string, signature: string | null): boolean {
    if (!signature || !/^[0-9a-f]{64}$/i.test(signature)) return false;
    const given = Buffer.from(signature.toLowerCase(), 'hex');
    return [...tokens].some((t) => timingSafeEqual(Buffer.from(viberSignature(t, body), 'hex'), given));
  }

  const callback: DriverRoute = {
    method: 'POST',
    path: '/callback',
    async handle(req: Request, ctx: ChannelContext): Promise<Response> {
      const raw = await req.text();
      if (!verified(raw, req.headers.get('x-viber-content-signature')))
        return jsonError(401, 'unauthorized', 'bad X-Viber-Content-Signature');
      let event: Record<string, unknown>;
      try {
        event = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return jsonError(400, 'bad_request', 'the body is not JSON');
      }
      if (typeof event !== 'object' || event === null || typeof event['event'] !== 'string')
        return jsonError(400, 'bad_request', 'expected an event');
      const receipt = viberReceipt(event);
      if (receipt) await ctx.report(receipt);
      const sender = event['sender'] as { id?: unknown; name?: unknown } | undefined;
      const message = event['message'] as { text?: unknown } | undefined;
      if (event['event'] === 'message' && ctx.inbound && typeof sender?.id === 'string') {
        try {
          await ctx.inbound({
            channel: 'chatapp_bot',
            phoneNumber: sender.id,
            alphaName: name,
            text: typeof message?.text === 'string' ? message.text : '',
          });
        } catch (error) {
          // Viber gives bots a user id, never the phone number: a message the engine cannot route to
          // an account is refused for good, so Viber must not be asked to retry it. Anything else
          // (storage down) fails the callback and Viber retries.
          const code = (error as { code?: unknown } | null)?.code;
          if (code !== 'not_found' && code !== 'conflict' && code !== 'validation_failed') throw error;
          return Response.json({ ignored: 'the message could not be routed to an account' }, { status: 200 });
        }
      }
      return new Response(null, { status: 200 });
    },
  };

  return {
    name,
    channels: ['chatapp_bot'],
    routes: [callback],
    async send(attempt: OutboundAttempt): Promise<SendResult> {
      if (closed) return { outcome: 'failed', failure: 'temporary', error: `${name} is closed` };
      const token = attempt.credentials?.botToken ?? options.botToken;
      if (!token) return { outcome: 'failed', failure: 'permanent', error: 'no bot token (X-Viber-Auth-Token)' };
      tokens.add(token);
      const data = attempt.messageData ?? {};
      const receiver = options.resolveReceiver
        ? await options.resolveReceiver(attempt)
        : typeof data['receiver'] === 'string'
          ? data['receiver']
          : attempt.to;
      if (!receiver) return { outcome: 'failed', failure: 'not_on_channel', error: 'the recipient is not subscribed to the bot' };
      const media = typeof data['media'] === 'string' ? data['media'] : undefined;
      const body = {
        receiver,
        min_api_version: typeof data['minApiVersion'] === 'number' ? data['minApiVersion'] : 1,
        sender: { name: attempt.from },
        tracking_data: attempt.idempotencyKey,
        type: media ? 'picture' : 'text',
        text: attempt.text,
        ...(media ? { media } : {}),
        ...(data['keyboard'] ? { keyboard: data['keyboard'] } : {}),
      };
      try {
        const res = await doFetch(`${api}/send_message`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-viber-auth-token': token },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
        });
        return viberSendOutcome(res.status, (await res.json().catch(() => null)) as Parameters<typeof viberSendOutcome>[1]);
      } catch (error) {
        return { outcome: 'failed', failure: 'temporary', error: `Viber unreachable: ${(error as Error).message}` };
      }
    },
    async check() {
      if (!options.botToken) return { ok: true, detail: 'bot tokens come with each request (X-Viber-Auth-Token): nothing to check' };
      try {
        const res = await doFetch(`${api}/get_account_info`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-viber-auth-token': options.botToken },
          body: '{}',
          signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
        });
        const answer = (await res.json()) as { status?: number; status_message?: string; name?: string };
        return answer.status === 0
          ? { ok: true, detail: `bot ${answer.name ?? ''}`.trim() }
          : { ok: false, detail: `get_account_info: ${answer.status_message ?? res.status}` };
      } catch (error) {
        return { ok: false, detail: `Viber unreachable: ${(error as Error).message}` };
      }
    },
    async close() {
      closed = true;
    },
  };
}
