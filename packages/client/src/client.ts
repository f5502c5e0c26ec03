import createClient from 'openapi-fetch';
import type { Client } from 'openapi-fetch';
import { authHeaders } from './auth.ts';
import { describingNetworkErrors } from './network-error.ts';
import type { SpillwayAuth } from './auth.ts';
import type { components, paths } from './openapi.ts';
import { realSleep, retryingFetch } from './retry.ts';
import type { RetryOptions, Sleep } from './retry.ts';

/** The component schemas of the API by name: `Schemas['MessageStatus']`, `Schemas['SendMessagesRequest']`, ... */
export type Schemas = components['schemas'];

/** The JSON error body of every error answer. */
export type ErrorBody = Schemas['Error'];

/** Options of {@link createSpillwayClient}. */
export interface SpillwayClientOptions {
  /** The server's base URL, with its mount prefix if any. @example 'https://sms.example.com' */
  baseUrl: string;
  /** Credentials sent with every request; none for the public routes only. */
  auth?: SpillwayAuth;
  /** Retries of answers 429 after their `Retry-After`. @default { retries: 3, maxDelayMs: 60000 } */
  retry?: RetryOptions;
  /** The fetch to use. @default globalThis.fetch */
  fetch?: (input: Request) => Promise<Response>;
  /** How the client waits between retries. @default setTimeout */
  sleep?: Sleep;
}

/** Options of {@link SpillwayClient.sendMessages}. */
export interface SendOptions {
  /** Sends again after a network error or a 5xx, with the same customerMessageIds. @default 3 */
  retries?: number;
  /** Wait before the first resend, doubled for each next one. @default 500 */
  baseDelayMs?: number;
}

/** An answer other than 2xx: its status and the API's JSON error body. */
export class SpillwayApiError extends Error {
  /** The API's JSON error body; undefined when the answer was not one (a proxy's page, a host's 404). */
  readonly body: ErrorBody | undefined;
  constructor(
    readonly status: number,
    body: ErrorBody | string | undefined,
  ) {
    const json = typeof body === 'object' && body !== null && typeof body.error === 'string' ? body : undefined;
    // An answer that is not the API's (a wrong baseUrl reaching the host's HTML 404) used to read
    // "404 undefined: undefined": its text says where the request went.
    const text =
      typeof body === 'string'
        ? body
            .replace(/<[^>]*>/g, ' ')
            .replace(/\s+/g, ' ')
            .trim()
            .slice(0, 200)
        : '';
    super(json ? `${status} ${json.error}: ${json.message}` : text ? `HTTP ${status}: ${text}` : `HTTP ${status}`);
    this.name = 'SpillwayApiError';
    this.body = json;
  }
}

/** The typed client: openapi-fetch's `GET`, `POST`, ... over every path of the API, plus helpers. */
export interface SpillwayClient extends Client<paths> {
  /**
   * `POST /bat/messagelist`, safe to repeat: each message without a `customerMessageId` gets a
   * random one before the first attempt, and the same request is sent again after a network
   * error or a 5xx. The server answers a repeat with the records it already made (an
   * idempotent replay), so nothing is sent twice.
   */
  sendMessages(body: Schemas['SendMessagesRequest'], options?: SendOptions): Promise<Schemas['SendMessagesResponse']>;
}

/**
 * A typed client of a Spillway server, generated from its OpenAPI document.
 *
 * @example
 * const spillway = createSpillwayClient({ baseUrl: 'http://127.0.0.1:8080', auth: { apiKey: process.env.SPILLWAY_KEY! } });
 * const sent = await spillway.sendMessages({ messages: [{ type: 'sms', from: 'Acme', to: '+99912345600', text: 'Hi' }] });
 * const { data } = await spillway.GET('/bat/message/{messageId}', { params: { path: { messageId: sent.messages[0]!.messageId } } });
 */
export function createSpillwayClient(options: SpillwayClientOptions): SpillwayClient {
  const sleep = options.sleep ?? realSleep;
  const baseFetch = options.fetch ?? ((input: Request) => globalThis.fetch(input));
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    fetch: retryingFetch(describingNetworkErrors(baseFetch), { ...options.retry, sleep }),
  });
  if (options.auth) {
    const headers = authHeaders(options.auth);
    client.use({
      onRequest({ request }) {
        for (const [name, value] of Object.entries(headers)) if (!request.headers.has(name)) request.headers.set(name, value);
        return request;
      },
    });
  }

  async function sendMessages(body: Schemas['SendMessagesRequest'], send: SendOptions = {}) {
    const retries = send.retries ?? 3;
    const baseDelayMs = send.baseDelayMs ?? 500;
    const request = {
      ...body,
      messages: body.messages.map((m) => ({ ...m, customerMessageId: m.customerMessageId || crypto.randomUUID() })),
    };
    for (let attempt = 0; ; attempt++) {
      let result;
      try {
        result = await client.POST('/bat/messagelist', { body: request });
      } catch (error) {
        // A network error: the server may or may not have stored the request; resending is safe.
        if (attempt >= retries) throw error;
        await sleep(baseDelayMs * 2 ** attempt);
        continue;
      }
      if (result.data) return result.data;
      if (result.response.status >= 500 && attempt < retries) {
        await sleep(baseDelayMs * 2 ** attempt);
        continue;
      }
      throw new SpillwayApiError(result.response.status, result.error as ErrorBody | string | undefined);
    }
  }

  return Object.assign(client, { sendMessages });
}
