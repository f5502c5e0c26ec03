import { createRateLimiter } from '@spillway/core/adapter';
import type { Engine, RateLimit } from '@spillway/core';
import type { EmailTransport } from '@spillway/core/adapter';
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { methodNotAllowed } from 'hono/method-not-allowed';
import type { Registry } from 'prom-client';
import { createAuthCache } from './auth-cache.ts';
import { createDirectRoutes } from './direct-routes.ts';
import type { DirectRoutes, SendsElsewhere } from './direct-routes.ts';
import { createLoginGuard } from './login-guard.ts';
import { declaredBodyLength } from './read-json.ts';
import type { LoginLimits } from './login-guard.ts';
import type { HttpSharedState } from './shared-state.ts';
import type { CallbackUrlPolicy } from './webhooks/guarded-post.ts';
import type { Env, HttpLogger } from './env.ts';
import type { TokenService } from './chat-hub/token-service.ts';
import { createErrorHandler, methodNotAllowedResponse, notFoundHandler } from './error-handler.ts';
import { normalizeBasePath } from './base-path.ts';
import { adaptLogger } from './host-logger.ts';
import { SpillwayError } from '@spillway/core';
import { createHttpMetrics } from './metrics.ts';
import type { OpenApiInfo } from './openapi.ts';
import { registerCascadeRoutes } from './routes/cascade.ts';
import { registerMessagingRoutes } from './routes/messaging.ts';
import { registerInboundRoutes } from './routes/inbound.ts';
import { registerClientRoutes } from './routes/clients.ts';
import { registerSenderRoutes } from './routes/senders.ts';
import { registerBotRoutes } from './routes/bots.ts';
import { registerClientDataRoutes } from './routes/client-data.ts';
import { registerClassicRoutes } from './routes/classic.ts';
import type { SocialOptions } from './social/social-options.ts';
import { registerSocialRoutes } from './social/social-routes.ts';
import { registerSystemRoutes } from './routes/system.ts';
import { registerGatewayCallback } from './routes/gateway-callback.ts';
import { registerReachabilityRoutes } from './routes/reachability.ts';

/** Options of {@link createHttpApp}. */
export interface HttpOptions {
  engine: Engine;
  /**
   * Default rate limits per account; an account's own `rateLimits` override them.
   * @default { messaging: { perSecond: 100, burst: 150 }, data: { perSecond: 50, burst: 75 } }
   */
  rateLimits?: { messaging?: RateLimit; data?: RateLimit };
  /**
   * Largest request body in bytes, checked on Content-Length and enforced while reading.
   * @default 16 MiB
   */
  maxBodyBytes?: number;
  /** `console`, or a pino or bunyan logger (called fields first, see `SpillwayOptions.logger`). @default console */
  logger?: HttpLogger;
  /**
   * Token service of the chat hub and client tokens: with it, every route that takes Basic or an
   * API key also takes a client token (`POST /api/auth`) as `Authorization: Bearer`.
   */
  tokens?: TokenService;
  /** Route modules mounted on the app after the built-in ones (chat hub, cascade, ...). */
  extraRoutes?: Array<(app: Hono<Env>) => void>;
  /** Registry of `/metrics`; pass one to add the engine's own metrics. @default a new Registry */
  metricsRegistry?: Registry;
  /**
   * Collect process metrics (`collectDefaultMetrics`) on the registry; skipped when the registry
   * already has them (a host's registry). @default true
   */
  defaultMetrics?: boolean;
  /** Count requests on the metrics registry and serve it at `/metrics`; false: neither. @default true */
  metrics?: boolean;
  /** Serve the metrics registry at `/metrics` (with `false`, requests are still counted on it). @default true */
  metricsEndpoint?: boolean;
  /** Serve `/openapi.json` and the `/docs` page. @default true */
  docs?: boolean;
  /** Serve the simulator's `/sandbox/*` routes (inject incoming chat-app messages). @default true */
  sandbox?: boolean;
  /** Called when an incoming message queued a callback: wake the webhook delivery worker. */
  onWebhookQueued?: () => void;
  /**
   * Successful authentications kept to spare a scrypt per request; dropped when the storage's
   * credential revision moves (checked on every request, or every `revocationCheckMs`).
   * @default { maxEntries: 1000, ttlMs: 30000, revocationCheckMs: 0 }
   */
  authCache?: { maxEntries?: number; ttlMs?: number; revocationCheckMs?: number };
  /**
   * Limits of failed password logins per login and per client address: past the free failures
   * each attempt waits a doubling delay, refused with 429 and `Retry-After` before any hashing.
   * @default { freeFailuresPerLogin: 5, freeFailuresPerAddress: 20, baseDelayMs: 1000, maxDelayMs: 300000 }
   */
  loginLimits?: LoginLimits;
  /**
   * The client address of a request, used by the per-address login limit. Behind a proxy, read
   * the header it sets (and only when it is that proxy that connects).
   * @default the socket's remote address under Node (`@hono/node-server`), else none
   */
  clientAddress?: (req: Request, env: unknown) => string | undefined;
  /**
   * Which callback URLs may be set: by default only hosts that are, or resolve to, public
   * addresses (deliveries check again). `{ allowPrivateUrls: true }` for development and tests.
   * @default {}
   */
  callbackUrls?: CallbackUrlPolicy;
  /** Title and version of `/openapi.json`. */
  openApiInfo?: OpenApiInfo;
  /**
   * The path prefix the app is served under (`createSpillway`'s `basePath`): the server URL of
   * `/openapi.json`. The app itself routes unprefixed paths. @default ''
   */
  basePath?: string;
  /** Standard Webhooks secret (`whsec_...`) of `POST /gateway-callback`; without one that route answers 404. */
  gatewaySecret?: string;
  /** Key of the operator routes (`/admin/...`, header `X-Admin-Key`); without it they answer 403. */
  adminKey?: string;
  /** Transport of `POST /api/email/send` (see `createSmtpTransport`); without it that route answers 500. */
  email?: EmailTransport;
  /** The social platform endpoints' configuration (webhook secrets, OAuth, graph upstream, token key). */
  social?: SocialOptions;
  /**
   * Rate limits and failed-login counts shared with the apps of other threads serving the same API
   * ({@link createHttpSharedState}); by default this app keeps its own.
   */
  shared?: HttpSharedState;
  /**
   * Answer the sends (`POST /bat/messagelist`) there instead of with this app's engine: the thread
   * that writes every acceptance, running `answerSend` for the body's text (the reference server's
   * extra HTTP threads). Both the direct route and the app's own route (taken when the direct
   * route hands a request over: uncached credentials, say) send there, after their own
   * authentication, rate limit and content-type check.
   */
  sendsElsewhere?: SendsElsewhere;
  /**
   * The workers heard from on the database, as last counted: `GET /health` answers it as
   * `workers`, so that a process that only accepts says when nobody sends what it accepted. Read
   * on every `/health`: answer a count kept, never a query (the reference server counts every
   * heartbeat period). Undefined leaves the field out. @default none
   */
  liveWorkers?: () => number | undefined;
}

/** Rate limits of an account that has none of its own: a sustained rate per second and a burst, per category. */
export const DEFAULT_RATE_LIMITS = {
  messaging: { perSecond: 100, burst: 150 },
  data: { perSecond: 50, burst: 75 },
} as const satisfies Record<'messaging' | 'data', RateLimit>;

/** @default 16 MiB */
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;

/**
 * Creates the Hono app serving every Spillway endpoint over `engine`: authentication, rate
 * limits, JSON errors, metrics and the OpenAPI document.
 *
 * @example
 * const app = createHttpApp({ engine });
 * const res = await app.request('/health');
 */
export function createHttpApp(options: HttpOptions): Hono<Env> {
  const { engine } = options;
  const logger = adaptLogger(options.logger ?? console);
  const basePath = normalizeBasePath(options.basePath);
  const rateLimiter = createRateLimiter({
    clock: engine.clock,
    defaults: {
      messaging: options.rateLimits?.messaging ?? DEFAULT_RATE_LIMITS.messaging,
      data: options.rateLimits?.data ?? DEFAULT_RATE_LIMITS.data,
    },
    ...(options.shared ? { shared: options.shared.rateLimits } : {}),
  });
  const storage = engine.storage as Partial<Engine['storage']> | undefined;
  const authCache = createAuthCache({
    clock: engine.clock,
    ...options.authCache,
    ...(typeof storage?.credentialRevision === 'function' ? { readRevision: () => engine.storage.credentialRevision() } : {}),
  });
  const loginGuard = createLoginGuard(engine.clock, options.loginLimits, options.shared?.logins);
  const clientAddress = options.clientAddress ?? socketAddress;
  const metrics =
    options.metrics === false ? null : createHttpMetrics(options.metricsRegistry, { defaultMetrics: options.defaultMetrics ?? true });
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

  const app = new Hono<Env>();
  app.use(async (c, next) => {
    c.set('engine', engine);
    c.set('rateLimiter', rateLimiter);
    c.set('authCache', authCache);
    c.set('loginGuard', loginGuard);
    c.set('clientAddress', clientAddress(c.req.raw, c.env));
    c.set('callbackUrlPolicy', options.callbackUrls);
    c.set('logger', logger);
    c.set('tokens', options.tokens);
    c.set('sendsElsewhere', options.sendsElsewhere);
    await next();
  });
  if (metrics) app.use(metrics.middleware);
  app.use(methodNotAllowed<Env>({ app, onMethodNotAllowed: methodNotAllowedResponse(basePath) }));
  app.use(limitBody(maxBodyBytes));

  registerSystemRoutes(app, {
    ...(metrics && options.metricsEndpoint !== false ? { registry: metrics.registry } : {}),
    docs: options.docs ?? true,
    ...(options.liveWorkers ? { liveWorkers: options.liveWorkers } : {}),
    ...(options.basePath ? { basePath: options.basePath } : {}),
    ...(options.openApiInfo ? { openApiInfo: options.openApiInfo } : {}),
  });
  registerMessagingRoutes(app);
  registerCascadeRoutes(app);
  registerInboundRoutes(app, {
    sandbox: options.sandbox ?? true,
    ...(options.onWebhookQueued ? { onQueued: options.onWebhookQueued } : {}),
  });
  registerGatewayCallback(app, { secret: options.gatewaySecret });
  registerSenderRoutes(app, { adminKey: options.adminKey });
  registerClientRoutes(app);
  const clientData = { email: options.email };
  registerBotRoutes(app, clientData);
  registerClientDataRoutes(app, clientData);
  registerClassicRoutes(app);
  registerSocialRoutes(app, { ...options.social, ...(options.onWebhookQueued ? { onQueued: options.onWebhookQueued } : {}) });
  registerReachabilityRoutes(app);
  for (const register of options.extraRoutes ?? []) register(app);

  app.notFound(notFoundHandler(basePath));
  app.onError(createErrorHandler(logger));
  directRoutes.set(
    app,
    createDirectRoutes({
      engine,
      authCache,
      rateLimiter,
      metrics,
      logger,
      maxBodyBytes,
      sendsElsewhere: options.sendsElsewhere,
      liveWorkers: options.liveWorkers,
    }),
  );
  return app;
}

const directRoutes = new WeakMap<Hono<Env>, DirectRoutes>();

/**
 * The direct routes of an app made by {@link createHttpApp} (`createDirectRoutes`: its hottest
 * routes answered without Hono, sharing its auth cache, rate limiter and metrics), to put in front
 * of it under Node: `serve({ fetch, direct })`. Undefined for any other app.
 */
export function directRoutesOf(app: Hono<Env>): DirectRoutes | undefined {
  return directRoutes.get(app);
}

/**
 * The body size limit, 413 `payload_too_large` past `maxBytes`. A body with a Content-Length (and
 * no Transfer-Encoding) is judged on it before anything is read: Node's parser never lets a body
 * run past its Content-Length, and the routes read it once, straight from the socket. Only a
 * streamed (chunked) body is counted while it is read, by Hono's `bodyLimit`. (That one reads
 * `c.req.raw.body`, which makes `@hono/node-server` build a whole web Request with its abort
 * signal and streams: too dear for every request, as it was.) GET and HEAD bodies are never read.
 */
function limitBody(maxBytes: number): MiddlewareHandler<Env> {
  const streamed = bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new SpillwayError('payload_too_large', `Request body exceeds ${maxBytes} bytes`);
    },
  });
  return async (c, next) => {
    const method = c.req.method;
    if (method === 'GET' || method === 'HEAD') return next();
    const headers = c.req.raw.headers;
    const length = declaredBodyLength(headers.get('content-length'), headers.has('transfer-encoding'));
    if (length === null) return streamed(c, next);
    if (length > maxBytes) throw new SpillwayError('payload_too_large', `Request body exceeds ${maxBytes} bytes`);
    return next();
  };
}

/** The peer address of the socket where `@hono/node-server` passes the Node request as `env.incoming`. */
function socketAddress(_req: Request, env: unknown): string | undefined {
  const incoming = (env as { incoming?: { socket?: { remoteAddress?: unknown } } } | undefined)?.incoming;
  const address = incoming?.socket?.remoteAddress;
  return typeof address === 'string' ? address : undefined;
}

/**
 * A web-standard fetch handler over {@link createHttpApp}: mount it in any runtime or framework
 * that speaks `Request`/`Response`.
 */
export function createFetchHandler(options: HttpOptions): (req: Request, env?: unknown) => Promise<Response> {
  const app = createHttpApp(options);
  return async (req, env) => app.fetch(req, env);
}
