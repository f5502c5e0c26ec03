import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { SpillwayError } from '@spillway/core';
import { createInboundService, withoutNul } from '@spillway/core/adapter';
import type { Engine, OAuthState } from '@spillway/core';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { Env } from '../env.ts';
import { defineRoute } from '../openapi.ts';
import { readJson } from '../read-json.ts';
import { clientStorageOf } from '../routes/client-services.ts';
import { parseOrThrow } from '../validate.ts';
import type { SocialOptions } from './social-options.ts';
import { verifySignedRequest } from './signed-request.ts';
import { createTokenCipher } from './token-cipher.ts';
import type { TokenCipher } from './token-cipher.ts';
import { exchangeCode } from './code-exchange.ts';
import { UpstreamError, upstreamFetch } from './upstream-fetch.ts';

/** How long an authorization link stays usable. */
const STATE_TTL_MS = 10 * 60_000;

const handshakeQuery = z.object({
  'hub.mode': z.literal('subscribe', { error: "must be 'subscribe'" }),
  'hub.verify_token': z.string().min(1),
  'hub.challenge': z.string().min(1).max(512),
});

const authorizeQuery = z.object({
  alphaName: z.string().min(1).max(64).meta({ description: 'Approved alpha-name whose callback gets the incoming messages' }),
  externalId: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,128}$/, '1 to 128 letters, digits, "_", ".", ":" or "-" (the platform’s id of the number or page)')
    .meta({ description: 'The platform’s id of the number or page (`phone_number_id`), as its webhooks name it' }),
});

const callbackQuery = z.object({ code: z.string().min(1).max(2048), state: z.string().min(1).max(256) });

const deauthorizeBody = z.strictObject({ alphaName: z.string().min(1).max(64) });

const connectionSchema = z.object({
  alphaName: z.string(),
  externalId: z.string(),
  expiresAt: z.iso.datetime().nullable(),
  connected: z.literal(true),
});

/** The platform's webhook body, WhatsApp Cloud style: entry[].changes[].value.{metadata, messages}. */
const webhookSchema = z.looseObject({
  entry: z
    .array(
      z.looseObject({
        changes: z
          .array(
            z.looseObject({
              value: z.looseObject({
                metadata: z.looseObject({ phone_number_id: z.union([z.string(), z.number()]).transform(String) }).optional(),
                messages: z
                  .array(
                    z.looseObject({
                      from: z.string(),
                      id: z.string().optional(),
                      type: z.string().optional(),
                      text: z.looseObject({ body: z.string() }).optional(),
                    }),
                  )
                  .optional(),
              }),
            }),
          )
          .default([]),
      }),
    )
    .default([]),
});

function badGateway(c: Context<Env>, message: string, status: 502 | 504 = 502) {
  return c.json({ error: status === 504 ? 'gateway_timeout' : 'bad_gateway', message, status }, status);
}

/**
 * The `idUuid` of a platform message: a UUID (version 8, RFC 9562) made of a SHA-256 of the
 * connection's external id and the platform's message id, so that the platform's retry of a
 * webhook finds the message already recorded instead of recording (and delivering) it twice.
 */
function socialInboundId(externalId: string, messageId: string): string {
  const h = createHash('sha256').update(`social\0${externalId}\0${messageId}`).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Refusals of one message that no retry can change: the message is ignored, not the request. */
const REFUSED_FOR_GOOD = new Set(['validation_failed', 'not_found']);

function signatureValid(secret: string, body: string, header: string | undefined): boolean {
  const match = header ? /^sha256=([0-9a-fA-F]{64})$/.exec(header.trim()) : null;
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(match[1]!, 'hex'));
}

/**
 * Registers the social platform endpoints: the webhook handshake and events (`GET`/`POST /social`),
 * the OAuth authorization (`GET /social/authorize`, `GET /social/add-token`,
 * `GET /api/marketplace/callback`), `POST /social/deauthorize` and the graph proxy
 * (`GET`/`POST /social-graph/{apiVersion}/{path}`).
 */
export function registerSocialRoutes(app: Hono<Env>, options: SocialOptions = {}): void {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxBytes = options.maxResponseBytes ?? 1024 * 1024;
  const allowPrivate = options.allowPrivateUrls ?? false;
  let cipher: TokenCipher | undefined;
  const cipherOf = (): TokenCipher => {
    if (!options.tokenKey) throw new SpillwayError('not_configured', 'social tokens need SPILLWAY_SOCIAL_TOKEN_KEY on this server');
    return (cipher ??= createTokenCipher(options.tokenKey));
  };
  const need = <T>(value: T | undefined, name: string): T => {
    if (!value) throw new SpillwayError('not_configured', `the social endpoints are not configured (${name})`);
    return value;
  };

  defineRoute(
    app,
    {
      method: 'get',
      path: '/social',
      operationId: 'verifySocialWebhook',
      summary: 'Webhook verification handshake of the social platform',
      description:
        'Answers `hub.challenge` as text when `hub.mode` is `subscribe` and `hub.verify_token` is the configured token; 403 otherwise.',
      tags: ['social'],
      auth: 'none',
      query: handshakeQuery,
      responses: {
        200: { description: 'The challenge', schema: z.string(), contentType: 'text/plain' },
        403: { description: 'Wrong verify token (or none configured)' },
      },
    },
    async (c) => {
      const q = parseOrThrow(handshakeQuery, c.req.query(), 'handshake');
      const expected = options.verifyToken;
      const given = Buffer.from(q['hub.verify_token']);
      if (!expected || given.length !== Buffer.byteLength(expected) || !timingSafeEqual(given, Buffer.from(expected))) {
        throw new SpillwayError('forbidden', 'hub.verify_token does not match');
      }
      return c.text(q['hub.challenge']);
    },
  );

  defineRoute(
    app,
    {
      method: 'post',
      path: '/social',
      operationId: 'receiveSocialWebhook',
      summary: 'Webhook events of the social platform',
      description:
        'Accepted only with `X-Hub-Signature-256: sha256=<HMAC-SHA256 of the raw body with the app secret>`. Text messages ' +
        '(`entry[].changes[].value.messages[]` with `metadata.phone_number_id`) to a connected number become incoming messages ' +
        'of the connection’s alpha-name, delivered to its callback as section 6 describes.',
      tags: ['social'],
      auth: 'none',
      responses: {
        200: { description: 'How many messages were taken in', schema: z.object({ received: z.int(), ignored: z.int() }) },
        401: { description: 'Missing or wrong signature' },
      },
    },
    async (c) => {
      const raw = await c.req.text();
      if (!options.appSecret || !signatureValid(options.appSecret, raw, c.req.header('x-hub-signature-256'))) {
        throw new SpillwayError('unauthorized', 'Missing or wrong X-Hub-Signature-256');
      }
      let parsedJson: unknown;
      try {
        parsedJson = JSON.parse(raw);
      } catch {
        throw new SpillwayError('bad_request', 'The body is not JSON');
      }
      const event = parseOrThrow(webhookSchema, parsedJson, 'webhook event');
      const engine = c.var.engine;
      const storage = clientStorageOf(engine);
      let received = 0;
      let ignored = 0;
      for (const entry of event.entry) {
        for (const change of entry.changes) {
          const externalId = change.value.metadata?.phone_number_id;
          const connection = externalId ? await storage.findSocialConnection(externalId) : null;
          for (const m of change.value.messages ?? []) {
            if (!connection || !m.text) {
              ignored++;
              continue;
            }
            // The platform retries a request until it gets a 2xx, with the messages it held: each
            // is recorded once (its id derived from the platform's), one that can never be taken
            // is ignored rather than failing the others, and U+0000 is kept as U+FFFD as for every
            // channel's incoming message. Only a failure of the storage answers 5xx, so that the
            // platform tries again.
            const inbound = createInboundService({
              storage: engine.storage,
              clock: engine.clock,
              ...(options.onQueued ? { onQueued: options.onQueued } : {}),
              ...(m.id ? { newId: () => socialInboundId(connection.externalId, m.id!) } : {}),
            });
            try {
              await inbound.receive(connection.accountId, {
                alphaName: connection.alphaName,
                phoneNumber: withoutNul(m.from),
                text: withoutNul(m.text.body),
              });
              received++;
            } catch (error) {
              if (!(error instanceof SpillwayError) || !(REFUSED_FOR_GOOD.has(error.code) || (error.code === 'conflict' && m.id)))
                throw error;
              ignored++;
            }
          }
        }
      }
      return c.json({ received, ignored });
    },
  );

  defineRoute(
    app,
    {
      method: 'get',
      path: '/social/authorize',
      operationId: 'authorizeSocial',
      summary: 'Start connecting a platform number to an alpha-name: the authorization link',
      description:
        'Answers a single-use `state` (10 minutes) and, when an authorize URL is configured, the link to send the user to. ' +
        '501 when the code exchange it starts is not configured (token URL and token key), as the other social endpoints.',
      tags: ['social'],
      auth: 'basic-or-key',
      query: authorizeQuery,
      responses: {
        200: { description: 'The state and link', schema: z.object({ state: z.string(), url: z.string().nullable() }) },
        404: { description: 'The account has no such alpha-name' },
        409: { description: 'Another account has connected this external id' },
        501: { description: 'The social endpoints are not configured on this server' },
      },
    },
    async (c) => {
      // A state is worth handing out only if its code can be exchanged and the token kept.
      need(options.tokenUrl, 'SPILLWAY_SOCIAL_TOKEN_URL');
      cipherOf();
      const q = parseOrThrow(authorizeQuery, { alphaName: c.req.query('alphaName'), externalId: c.req.query('externalId') }, 'query');
      const engine = c.var.engine;
      const storage = clientStorageOf(engine);
      if (!(await storage.getAlphaName(c.var.account.id, q.alphaName))) {
        throw new SpillwayError('not_found', `the account has no alpha-name '${q.alphaName}'`);
      }
      await mustNotBeOthers(storage, q.externalId, c.var.account.id);
      const state = randomBytes(24).toString('base64url');
      await storage.createOAuthState({ state, accountId: c.var.account.id, ...q, expiresAt: engine.clock.now() + STATE_TTL_MS });
      let url: string | null = null;
      if (options.authorizeUrl) {
        const link = new URL(options.authorizeUrl);
        link.searchParams.set('client_id', options.clientId ?? '');
        if (options.redirectUri) link.searchParams.set('redirect_uri', options.redirectUri);
        link.searchParams.set('state', state);
        link.searchParams.set('response_type', 'code');
        url = link.toString();
      }
      return c.json({ state, url });
    },
  );

  /** Refuses an external id another account has connected: taking it over would hand that account's incoming messages to this one. */
  const mustNotBeOthers = async (storage: ReturnType<typeof clientStorageOf>, externalId: string, accountId: number) => {
    const connected = await storage.findSocialConnection(externalId);
    if (connected && connected.accountId !== accountId) {
      throw new SpillwayError(
        'conflict',
        `${externalId} is connected to another account: it must be disconnected there first (POST /social/deauthorize, or by the platform)`,
      );
    }
  };

  /**
   * Puts a taken state back after an exchange that gave no verdict on the code, unless it expired
   * meanwhile; false when it could not be (the user must then start again).
   */
  const restoreState = async (c: Context<Env>, pending: OAuthState): Promise<boolean> => {
    if (pending.expiresAt <= c.var.engine.clock.now()) return false;
    try {
      await clientStorageOf(c.var.engine).createOAuthState(pending);
      return true;
    } catch (error) {
      c.get('logger').warn('could not keep an OAuth state for a retry', { error: (error as Error).message });
      return false;
    }
  };

  const exchange = async (c: Context<Env>) => {
    const q = parseOrThrow(callbackQuery, { code: c.req.query('code'), state: c.req.query('state') }, 'query');
    const tokenUrl = need(options.tokenUrl, 'SPILLWAY_SOCIAL_TOKEN_URL');
    const sealer = cipherOf();
    const engine = c.var.engine;
    const storage = clientStorageOf(engine);
    // Taken (deleted) before the exchange, so that two redirects with one state never both exchange.
    const pending = await storage.takeOAuthState(q.state, engine.clock.now());
    if (!pending) throw new SpillwayError('bad_request', 'Unknown, used or expired state: start again at /social/authorize');
    await mustNotBeOthers(storage, pending.externalId, pending.accountId);
    const form = new URLSearchParams({ grant_type: 'authorization_code', code: q.code, client_id: options.clientId ?? '' });
    if (options.appSecret) form.set('client_secret', options.appSecret);
    if (options.redirectUri) form.set('redirect_uri', options.redirectUri);
    const exchanged = await exchangeCode(tokenUrl, form, { allowPrivate, timeoutMs });
    if (exchanged.outcome === 'refused') {
      // A code is used once: the platform's refusal stands, so the state ends with it.
      return badGateway(
        c,
        `the platform refused the code (${exchanged.message}): this authorization is used up, start again at /social/authorize`,
      );
    }
    if (exchanged.outcome === 'failed') {
      // No verdict on the code: the state is put back as it was (same expiry), so that the same
      // redirect can be retried.
      const kept = await restoreState(c, pending);
      const next = kept ? `retry this link until ${new Date(pending.expiresAt).toISOString()}` : 'start again at /social/authorize';
      return badGateway(c, `token exchange failed: ${exchanged.message}; ${next}`, exchanged.timeout ? 504 : 502);
    }
    const now = engine.clock.now();
    const saved = await storage.upsertSocialConnection({
      accountId: pending.accountId,
      alphaName: pending.alphaName,
      externalId: pending.externalId,
      tokenCiphertext: await sealer.encrypt(exchanged.accessToken),
      expiresAt: exchanged.expiresIn ? now + exchanged.expiresIn * 1000 : null,
      updatedAt: now,
    });
    return c.json({
      alphaName: saved.alphaName,
      externalId: saved.externalId,
      expiresAt: saved.expiresAt === null ? null : new Date(saved.expiresAt).toISOString(),
      connected: true as const,
    });
  };

  for (const path of ['/social/add-token', '/api/marketplace/callback']) {
    defineRoute(
      app,
      {
        method: 'get',
        path,
        operationId: path === '/social/add-token' ? 'addSocialToken' : 'completeMarketplaceAuthorization',
        summary: 'OAuth redirect: exchange the code for a token and connect the number',
        description:
          'The platform redirects the user here with `code` and the `state` of `/social/authorize`. The code is exchanged at the ' +
          'configured token URL (form POST with client id and secret); the token is stored encrypted (AES-256-GCM). A code is ' +
          'used once: when the token endpoint refuses it (a 4xx such as `invalid_grant`) the state ends too, and the user starts ' +
          'again at `/social/authorize`. A failure that says nothing of the code (no answer, a time-out, a 5xx, 408 or 429) keeps ' +
          'the state, so that the same link can be retried until the state expires.',
        tags: ['social'],
        auth: 'none',
        query: callbackQuery,
        responses: {
          200: { description: 'The connection', schema: connectionSchema },
          400: { description: 'Unknown, used or expired state' },
          502: {
            description:
              'The token endpoint refused the code (the state ends) or failed, or could not be reached (the state is kept for a retry)',
          },
          504: { description: 'The token endpoint did not answer in time (the state is kept for a retry)' },
        },
      },
      exchange,
    );
  }

  // The platform's own call: a form with its signed_request, no account credentials. Anything else
  // goes on to the client's authenticated call below.
  app.post('/social/deauthorize', async (c, next) => {
    if (!(c.req.header('content-type') ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded')) return next();
    const signed = new URLSearchParams(await c.req.text()).get('signed_request');
    if (signed === null) return next();
    if (!options.appSecret) throw new SpillwayError('unauthorized', 'signed requests are not accepted: no app secret is configured');
    const { userId } = verifySignedRequest(signed, options.appSecret, c.var.engine.clock.now());
    const storage = clientStorageOf(c.var.engine);
    const connection = await storage.findSocialConnection(userId);
    const removed = connection ? await storage.deleteSocialConnection(connection.accountId, connection.alphaName) : false;
    return c.json({ userId, removed });
  });

  defineRoute(
    app,
    {
      method: 'post',
      path: '/social/deauthorize',
      operationId: 'deauthorizeSocial',
      summary: 'Disconnect a platform number: the stored token is removed',
      description:
        'Two callers. The client, authenticated, with a JSON body `{ alphaName }` (404 when it has no connection). The ' +
        'platform, without credentials, with a form body `signed_request=<signature>.<payload>` as it documents for its ' +
        'deauthorize callback: base64url parts, the signature an HMAC-SHA256 of the payload part with the app secret ' +
        '(`SPILLWAY_SOCIAL_APP_SECRET`), the payload JSON `{ algorithm: "HMAC-SHA256", user_id, issued_at }`. The connection ' +
        'whose external id is that `user_id` is removed; the answer is `{ userId, removed }`. A bad signature answers 401.',
      tags: ['social'],
      auth: 'basic-or-key',
      body: deauthorizeBody,
      responses: {
        200: { description: 'Removed', schema: z.object({ alphaName: z.string(), removed: z.literal(true) }) },
        404: { description: 'The alpha-name has no connection' },
      },
    },
    async (c) => {
      const body = parseOrThrow(deauthorizeBody, await readJson(c), 'request body');
      if (!(await clientStorageOf(c.var.engine).deleteSocialConnection(c.var.account.id, body.alphaName))) {
        throw new SpillwayError('not_found', `'${body.alphaName}' has no connection`);
      }
      return c.json({ alphaName: body.alphaName, removed: true as const });
    },
  );

  const proxy = async (c: Context<Env>) => {
    const apiVersion = parseOrThrow(
      z.string().regex(/^v[0-9]{1,3}(\.[0-9]{1,3})?$/, 'like v19.0'),
      c.req.param('apiVersion'),
      'apiVersion',
      'apiVersion',
    );
    const path = parseOrThrow(
      z
        .string()
        .regex(/^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/, 'segments of letters, digits, _ . -')
        .refine((p) => !p.split('/').includes('..'), 'no .. segments'),
      c.req.param('path'),
      'path',
      'path',
    );
    const upstream = need(options.graphUrl, 'SPILLWAY_SOCIAL_GRAPH_URL');
    const engine: Engine = c.var.engine;
    const storage = clientStorageOf(engine);
    const query = new URL(c.req.url).searchParams;
    const alphaName = query.get('alphaName');
    query.delete('alphaName');
    const connections = await storage.listSocialConnections(c.var.account.id);
    const connection = alphaName
      ? connections.find((x) => x.alphaName === alphaName)
      : connections.length === 1
        ? connections[0]
        : undefined;
    if (!connection) {
      throw new SpillwayError(
        'not_found',
        alphaName ? `'${alphaName}' has no connection` : 'name the connection with ?alphaName= (the account has none or several)',
      );
    }
    const token = await cipherOf().decrypt(connection.tokenCiphertext);
    const target = new URL(`${upstream.replace(/\/+$/, '')}/${apiVersion}/${path}`);
    for (const [k, v] of query) target.searchParams.append(k, v);
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: c.req.header('accept') ?? 'application/json' };
    let body: string | undefined;
    if (c.req.method === 'POST') {
      body = await c.req.text();
      headers['content-type'] = c.req.header('content-type') ?? 'application/json';
    }
    try {
      const res = await upstreamFetch(target.toString(), { method: c.req.method, headers, body }, { allowPrivate, timeoutMs, maxBytes });
      return new Response(new Uint8Array(res.body), {
        status: res.status,
        headers: res.contentType ? { 'content-type': res.contentType } : {},
      });
    } catch (error) {
      if (error instanceof UpstreamError) return badGateway(c, `graph call failed: ${error.message}`, error.kind === 'timeout' ? 504 : 502);
      throw error;
    }
  };

  for (const method of ['get', 'post'] as const) {
    defineRoute(
      app,
      {
        method,
        path: '/social-graph/:apiVersion/:path{.+}',
        operationId: method === 'get' ? 'getSocialGraph' : 'postSocialGraph',
        summary: `Proxy a ${method.toUpperCase()} to the platform's graph API with the stored token`,
        description:
          'Forwards to `{SPILLWAY_SOCIAL_GRAPH_URL}/{apiVersion}/{path}` with the query (less `alphaName`, which picks the ' +
          'connection when the account has several) and `Authorization: Bearer <token>`. Refuses loopback and private upstream ' +
          'addresses unless allowed; 10 s time limit; answers over 1 MiB are refused (502).',
        tags: ['social'],
        auth: 'basic-or-key',
        params: { apiVersion: z.string().meta({ examples: ['v19.0'] }), path: z.string() },
        responses: {
          200: { description: 'The upstream answer, relayed with its status and content type' },
          404: { description: 'No connection to use' },
          502: { description: 'Upstream refused (non-public address), unreachable, or answer too large' },
          504: { description: 'Upstream did not answer in time' },
        },
      },
      proxy,
    );
  }
}
