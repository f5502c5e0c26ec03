import { SpillwayError, STOP_SETTLE_MS, createEngine, settledBy, systemClock } from '@spillway/core';
import type { ChannelDriver, Clock, Engine, EngineOptions, PasswordHasher, RouteStatsStorage, Storage } from '@spillway/core';
import type { Hono } from 'hono';
import { Registry } from 'prom-client';
import { createHttpApp, directRoutesOf } from './app.ts';
import type { HttpOptions } from './app.ts';
import { directBelow, normalizeBasePath, withBasePath } from './base-path.ts';
import type { DirectRoutes } from './direct-routes.ts';
import { createChatHubRoutes } from './chat-hub/chat-hub-routes.ts';
import { createTokenService } from './chat-hub/token-service.ts';
import type { TokenService } from './chat-hub/token-service.ts';
import { registerDriverRoutes } from './driver-routes.ts';
import { inboundRefusal, watchDrivers } from './drivers/driver-events.ts';
import type { DriverEvent } from './drivers/driver-events.ts';
import { createDriverLog } from './drivers/driver-log.ts';
import { createDriverMetrics } from './drivers/driver-metrics.ts';
import type { Env, HttpLogger } from './env.ts';
import { adaptLogger } from './host-logger.ts';
import { checkOptions } from './spillway-options.ts';
import { createEngineMetrics } from './metrics.ts';
import { createNodeHasher } from './node-hasher.ts';
import { createPublicUrl } from './public-url.ts';
import { serve } from './node.ts';
import type { FetchHandler, RunningServer } from './node.ts';
import { mountRoutes } from './openapi.ts';
import { registerRouteStatsApi } from './routes/route-stats-api.ts';
import { createWebhookDeliveryWorker } from './webhooks/delivery-worker.ts';
import { createWebhookMetrics } from './webhooks/webhook-metrics.ts';
import type { WebhookDeliveryWorker, WebhookDeliveryWorkerOptions } from './webhooks/delivery-worker.ts';

/** Options of {@link createSpillway}. */
export interface SpillwayOptions {
  /** `createSqliteStorage(...)` or `createPostgresStorage(...)`; migrated by `start()`, closed by `stop()`. */
  storage: Storage;
  /** The channel drivers (`createSimulator()` from `@spillway/channels`, your own); later ones win a channel. */
  channels: ChannelDriver[];
  /**
   * The path prefix the API is served under, e.g. `/spillway`: `fetch` answers `/spillway/bat/...`
   * and a JSON 404 outside it. @default '' (the root)
   */
  basePath?: string;
  /** Serve `/openapi.json` and the `/docs` page. @default true */
  docs?: boolean;
  /**
   * Prometheus metrics: `false` collects nothing and serves no `/metrics`. Pass the host's
   * `registry` to add Spillway's metrics to it (process metrics are collected only when the
   * registry has none yet); `endpoint: false` leaves serving it to the host.
   * @default { registry: new Registry(), defaultMetrics: true, endpoint: true }
   */
  metrics?: boolean | { registry?: Registry; defaultMetrics?: boolean; endpoint?: boolean };
  /** Serve the simulator's `/sandbox/*` routes (inject incoming chat-app messages). @default true */
  sandbox?: boolean;
  /**
   * Deliver incoming chat-app messages to the alpha-names' callback URLs (the delivery worker);
   * `false` leaves them queued for a worker elsewhere. @default true
   */
  webhooks?: boolean | Omit<WebhookDeliveryWorkerOptions, 'storage' | 'clock'>;
  /**
   * Run the engine's workers and the webhook deliveries in this process; `false` for a process
   * that only accepts and reads while workers run elsewhere on the same database. @default true
   */
  workers?: boolean;
  /**
   * The chat hub API and client tokens (`POST /api/auth`), signed with `jwtSecret` (at least 32
   * characters) or a key generated and stored on the first start; `false`: neither. @default true
   */
  chatHub?: boolean | { jwtSecret?: string };
  /** Let callback URLs (set and delivered) be loopback or private addresses: development and tests only. @default false */
  allowPrivateUrls?: boolean;
  /**
   * The public origin of the API, basePath included: the base of the short links in sent texts
   * (`https://shop.example/spillway/s/{code}`). Without it, where `listen()` serves
   * (`http://127.0.0.1:{port}{basePath}`); mounted in your own server, none is known, and a cascade
   * that makes a short link is refused (501 `not_configured`) rather than sent with a wrong one.
   * @default where `listen()` serves
   */
  publicUrl?: string | (() => string);
  /**
   * Serves `GET /api/routes/{id}/stats` (a route's traffic, the designer's view of it) over this
   * reader; a storage without one answers it 501 naming this option.
   * @default the storage's own (`createSqliteStorage` and `createPostgresStorage` have one)
   */
  routeStats?: RouteStatsStorage;
  /** @default systemClock */
  clock?: Clock;
  /** @default createNodeHasher() */
  hasher?: PasswordHasher;
  /**
   * Where Spillway logs: anything with `info`, `warn` and `error(message, meta)` (`console`,
   * winston); a pino logger (Fastify's `fastify.log`) or a bunyan one, which take the fields
   * first, is recognised and called so. @default console
   */
  logger?: HttpLogger;
  /**
   * Observes what happens to the drivers, after it was logged and counted: a connection lost and
   * back, a failover's breaker, an incoming message refused (the reference server's workers'
   * thread posts them to the thread that serves `/metrics`).
   */
  onDriverEvent?: (event: DriverEvent) => void;
  /** Further engine options (rate card, ttl, batch size, accounts' own drivers in `accountChannels`, ...). */
  engine?: Omit<EngineOptions, 'storage' | 'channels' | 'hasher' | 'clock' | 'worker'>;
  /** Further options of the HTTP app (rate limits, admin key, e-mail, social, extra routes, ...). */
  http?: Omit<
    HttpOptions,
    | 'engine'
    | 'tokens'
    | 'metrics'
    | 'metricsRegistry'
    | 'defaultMetrics'
    | 'metricsEndpoint'
    | 'docs'
    | 'sandbox'
    | 'onWebhookQueued'
    | 'basePath'
  >;
}

/** What {@link createSpillway} answers: the running parts and one handler to mount. */
export interface Spillway {
  engine: Engine;
  storage: Storage;
  /** The Hono app of every route, unprefixed (for tests and `app.request`). */
  app: Hono<Env>;
  /** The normalized prefix (`''` or `/a/b`). */
  basePath: string;
  /** A web-standard handler serving the API under `basePath`: Next.js route handlers, Bun, Deno, `serve`. */
  fetch: FetchHandler;
  /**
   * The API's hottest routes (single and bulk sends, status reads, `/health`) under `basePath`, answered
   * straight from Node's request and response without Hono, exactly as `fetch` answers them; they
   * hand every other request to `fetch`. `listen()` uses them; with your own Node server,
   * `serve({ fetch, direct })` or `createNodeListener(fetch, direct)`.
   */
  direct: DirectRoutes;
  /** The chat hub's token service, unless `chatHub: false`. */
  tokens: TokenService | undefined;
  /** The webhook delivery worker, unless `webhooks` or `workers` is false. */
  webhooks: WebhookDeliveryWorker | undefined;
  /** The metrics registry, unless `metrics: false`. */
  registry: Registry | undefined;
  /** Migrates the storage, loads the signing keys, starts the workers. Idempotent. */
  start(): Promise<void>;
  /** Starts (if needed) and listens on its own Node server; `stop()` closes it. */
  listen(options?: { port?: number; hostname?: string }): Promise<RunningServer>;
  /**
   * Stops cleanly within one deadline, `graceMs` from the call: closes the server of `listen()`
   * (answering what it holds), lets the workers finish the round and the sends in flight, stops
   * the webhook deliveries, closes the drivers, and closes the storage last. Each waits for what
   * is left of the deadline; past it, what is already done is recorded for a moment more
   * (`STOP_SETTLE_MS`), and what still runs then is left, as a crash leaves it (the next process
   * adopts the sends, the webhook deliveries are retried), logged at warn.
   * Requests are answered 503 `unavailable` from the call on.
   * @default graceMs 10000
   */
  stop(options?: { graceMs?: number }): Promise<void>;
  /**
   * Answers every request 503 `unavailable` (with `Retry-After`) from now on, the direct routes
   * stepping aside, as `stop()` does from its start, and stops nothing: for a host that has parts of
   * its own to stop before calling `stop()` (the reference server its threads), so that no request
   * is served meanwhile on a connection still open.
   */
  stopRequests(): void;
}

/**
 * Creates everything the reference server runs, in one call: the engine and its workers, the
 * webhook delivery worker, metrics, the chat hub and the whole HTTP API, mountable anywhere.
 *
 * @example
 * const spillway = createSpillway({ storage: createSqliteStorage({ filename: 'spillway.db' }), channels: [createSimulator()], basePath: '/spillway' });
 * await spillway.start();
 * app.use(toNodeHandler(spillway)); // express; see also toFastifyPlugin, toKoaMiddleware
 * process.on('SIGTERM', () => void spillway.stop());
 */
export function createSpillway(options: SpillwayOptions): Spillway {
  checkOptions(options);
  const { storage } = options;
  const logger = adaptLogger(options.logger ?? console);
  const clock = options.clock ?? systemClock;
  const basePath = normalizeBasePath(options.basePath);
  const workers = options.workers ?? true;
  const metricsOption = options.metrics ?? true;
  const metrics = metricsOption === false ? null : metricsOption === true ? {} : metricsOption;
  const registry = metrics ? (metrics.registry ?? new Registry()) : undefined;
  const engineMetrics = registry ? createEngineMetrics(registry) : null;

  /**
   * The error handler of work done in the background (the workers' rounds, webhook deliveries):
   * a database locked past the busy timeout (another writer) or out of reach (a restart, a
   * failover) is tried again by the next round or poll, so it is a warning without a stack; any
   * other error is logged as `what` with its stack.
   */
  const backgroundError =
    (who: string, what: string) =>
    (error: unknown): void => {
      const message = error instanceof Error ? error.message : String(error);
      if (storage.isBusy?.(error)) logger.warn(`database busy: ${who} try again`, { error: message });
      else if (storage.isUnavailable?.(error)) logger.warn(`database unavailable: ${who} try again`, { error: message });
      else logger.error(what, { error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    };
  const webhookOptions = options.webhooks ?? true;
  const ownWebhookOptions = webhookOptions === true || webhookOptions === false ? {} : webhookOptions;
  const webhookMetrics = registry && workers && webhookOptions !== false ? createWebhookMetrics(registry) : null;
  const webhooks =
    workers && webhookOptions !== false
      ? createWebhookDeliveryWorker({
          storage,
          clock,
          allowPrivateUrls: options.allowPrivateUrls ?? false,
          onError: backgroundError('webhook deliveries', 'webhook delivery error'),
          ...ownWebhookOptions,
          ...(webhookMetrics
            ? {
                onAttempt: (attempt) => {
                  webhookMetrics.onAttempt(attempt);
                  ownWebhookOptions.onAttempt?.(attempt);
                },
              }
            : {}),
        })
      : undefined;

  // Accounts' own drivers (engine.accountChannels) get their callback routes and are closed like the others.
  const allDrivers = [...options.channels, ...(options.engine?.accountChannels?.drivers ?? [])];
  // The drivers' health and refused incoming messages: logged, counted, and told to the host.
  const driverLog = createDriverLog(logger, clock);
  const driverMetrics = registry ? createDriverMetrics(registry, allDrivers) : null;
  const onDriverEvent = (event: DriverEvent) => {
    driverLog(event);
    driverMetrics?.record([event]);
    options.onDriverEvent?.(event);
  };
  const unwatchDrivers = watchDrivers(allDrivers, onDriverEvent);
  const onInboundRefused: NonNullable<EngineOptions['onInboundRefused']> = (refusal) => onDriverEvent(inboundRefusal(refusal));
  /** Logged and counted, then the host's own hook: from the workers' drivers and from the driver routes alike. */
  const everyInboundRefusal: NonNullable<EngineOptions['onInboundRefused']> = (refusal) => {
    onInboundRefused(refusal);
    options.engine?.onInboundRefused?.(refusal);
  };
  const publicUrl = createPublicUrl({ publicUrl: options.publicUrl, basePath, logger });
  const engine = createEngine({
    onError: backgroundError('the workers', 'worker error'),
    ...options.engine,
    ...(engineMetrics
      ? {
          onCommit: (commit) => {
            engineMetrics.onCommit(commit);
            options.engine?.onCommit?.(commit);
          },
        }
      : {}),
    onInboundRefused: everyInboundRefusal,
    publicBaseUrl: publicUrl.base,
    storage,
    channels: options.channels,
    hasher: options.hasher ?? createNodeHasher(),
    clock,
    worker: workers,
  });

  const routeStats = options.routeStats ?? routeStatsOf(storage);
  const chatHub = options.chatHub ?? true;
  const jwtSecret = typeof chatHub === 'object' ? chatHub.jwtSecret : undefined;
  const tokens = chatHub === false ? undefined : createTokenService({ storage, clock, ...(jwtSecret ? { secret: jwtSecret } : {}) });
  const http = options.http ?? {};
  const app = createHttpApp({
    logger,
    callbackUrls: { allowPrivateUrls: options.allowPrivateUrls ?? false },
    ...http,
    engine,
    ...(tokens ? { tokens } : {}),
    metrics: registry !== undefined,
    ...(registry ? { metricsRegistry: registry } : {}),
    defaultMetrics: metrics?.defaultMetrics ?? true,
    metricsEndpoint: metrics?.endpoint ?? true,
    docs: options.docs ?? true,
    basePath,
    sandbox: options.sandbox ?? true,
    ...(webhooks ? { onWebhookQueued: () => webhooks.notify() } : {}),
    extraRoutes: [
      ...(tokens ? [(root: Hono<Env>) => mountRoutes(root, '/', createChatHubRoutes({ engine, tokens, clock }))] : []),
      (root) => registerDriverRoutes(root, engine, allDrivers, { onInboundRefused: everyInboundRefusal }),
      (root) =>
        routeStats
          ? registerRouteStatsApi(root, routeStats)
          : root.get('/api/routes/:id/stats', () => {
              throw new SpillwayError('not_configured', NO_ROUTE_STATS);
            }),
      ...(http.extraRoutes ?? []),
    ],
  });

  /** The answer of every request before `start()` has finished, and once `stop()` was called. */
  const unavailable = (message: string) =>
    new Response(JSON.stringify({ error: 'unavailable', message, status: 503 }), {
      status: 503,
      headers: { 'content-type': 'application/json', 'retry-after': '1' },
    });
  const stoppedAnswer = () => unavailable('Spillway is stopped: it takes no more requests');
  const notStartedAnswer = () =>
    unavailable(
      'Spillway is not started: call `await spillway.start()` before it takes requests (it migrates the database and starts the workers)',
    );
  let starting: Promise<void> | null = null;
  let started = false;
  let stopping: Promise<void> | null = null;
  /** Requests are answered 503: `stop()` or `stopRequests()` was called. */
  let refusing = false;
  let server: RunningServer | null = null;

  async function start(): Promise<void> {
    await storage.migrate();
    await tokens?.ready();
    // A stop that came while the migrations waited (a lock another process held) did not wait
    // for them past its deadline: nothing starts after it.
    if (stopping) throw new Error('createSpillway: stopped before start() finished: nothing was started');
    engine.start();
    webhooks?.start();
    started = true;
  }

  async function stop(graceMs = DEFAULT_GRACE_MS): Promise<void> {
    const deadline = clock.now() + graceMs;
    const settleBy = deadline + STOP_SETTLE_MS;
    const left: Record<string, unknown> = {};
    // A stop while starting waits for the start until the deadline; a start that ends later
    // starts nothing (see start()).
    if (
      !(await settledBy(
        starting?.catch(() => {}),
        deadline,
        clock,
      ))
    )
      left['startRunning'] = true;
    if (!(await settledBy(server?.close(), deadline, clock))) left['requestsUnanswered'] = server?.unanswered();
    // An engine whose start never came (the start still waiting) has nothing to stop.
    const engineLeft = started
      ? await engine.stop(Math.max(0, deadline - clock.now()))
      : { sendsInFlight: 0, unapplied: 0, roundRunning: false };
    if (engineLeft.sendsInFlight > 0) left['sendsInFlight'] = engineLeft.sendsInFlight;
    if (engineLeft.unapplied > 0) left['resultsUnapplied'] = engineLeft.unapplied;
    if (engineLeft.roundRunning) left['roundRunning'] = true;
    if (!(await settledBy(webhooks?.stop(), deadline, clock))) left['webhookDeliveriesRunning'] = true;
    const drivers = Promise.all(allDrivers.map(async (d) => d.close?.()));
    const closed = await settledBy(drivers, settleBy, clock).catch((error: unknown) => {
      logger.error('a driver failed to close', { error: error instanceof Error ? error.message : String(error) });
      return true;
    });
    if (!closed) left['driversClosing'] = true;
    unwatchDrivers();
    // Last: a commit still running (a request's, a round's) ends and is answered if it can.
    if (!(await settledBy(storage.close(), settleBy, clock))) left['storageClosing'] = true;
    if (Object.keys(left).length > 0) {
      logger.warn(
        'the stop reached its deadline: what still ran is left as a crash leaves it (the next process adopts the sends in flight, webhook deliveries are retried)',
        left,
      );
    }
  }

  // Once stop() is called the engine and its database are closing: every request, on a host's
  // server too (`toNodeHandler`, the framework adapters), answers 503 rather than a 500 from a
  // closed database, or a /health of 200 that keeps a load balancer sending traffic. Before
  // start() has finished, likewise: the tables may not exist yet (every caller was answered 401)
  // and no worker runs (a send was accepted and then waited for a worker that never came).
  const mounted = withBasePath(app.fetch, basePath);
  const direct = directBelow(directRoutesOf(app)!, basePath);
  const spillway: Spillway = {
    engine,
    storage,
    app,
    basePath,
    fetch: (request, ...rest) => (refusing ? stoppedAnswer() : started ? mounted(request, ...rest) : notStartedAnswer()),
    // The app answers the 503: the direct routes step aside.
    direct: (req, res, next, path) => (refusing || !started ? next() : direct(req, res, next, path)),
    tokens,
    webhooks,
    registry,
    start: () =>
      stopping
        ? Promise.reject(new Error('createSpillway: start() after stop(): a stopped Spillway does not start again, create a new one'))
        : (starting ??= start()),
    async listen(listenOptions = {}) {
      await spillway.start();
      if (server) throw new Error('createSpillway: listen() was already called');
      server = await serve({ fetch: spillway.fetch, direct: spillway.direct, ...listenOptions });
      publicUrl.listening(server.hostname, server.port);
      return server;
    },
    stop: (stopOptions = {}) => {
      refusing = true;
      return (stopping ??= stop(stopOptions.graceMs));
    },
    stopRequests: () => void (refusing = true),
  };
  return spillway;
}

/** `stop()`'s grace period without `graceMs`, ms (the engine's default). */
const DEFAULT_GRACE_MS = 10_000;

/** What `GET /api/routes/{id}/stats` answers (501) over a storage without a route stats reader. */
const NO_ROUTE_STATS =
  'route stats need a reader of the storage: pass createSpillway({ routeStats }) (createSqliteRouteStats(db), ' +
  'createPostgresRouteStats(pool, schema)), or use a storage with routeTraffic (createSqliteStorage and createPostgresStorage have it)';

/** The storage's own route stats reader (the built-in storages have one), if it has one. */
function routeStatsOf(storage: Storage): RouteStatsStorage | undefined {
  return typeof (storage as Partial<RouteStatsStorage>).routeTraffic === 'function' ? (storage as Storage & RouteStatsStorage) : undefined;
}
