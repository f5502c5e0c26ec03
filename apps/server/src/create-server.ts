import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import type { Worker } from 'node:worker_threads';
import pino from 'pino';
import type { Logger } from 'pino';
import { parseRateCard, settledBy, systemClock } from '@spillway/core';
import type { ChannelDriver, Clock, Commit, Engine, Storage } from '@spillway/core';
import { createSimulator } from '@spillway/channels';
import {
  answerSend,
  createDriverMetrics,
  createEngineMetrics,
  createHttpSharedState,
  createSmtpTransport,
  createSpillway,
  createWebhookMetrics,
  createWorkerMetrics,
  healthBody,
  isWildcardHost,
  listenOrigin,
  serve,
} from '@spillway/http';
import type {
  DriverEvent,
  EngineCounts,
  ErrorBody,
  HttpLogger,
  HttpSharedState,
  SendsElsewhere,
  TokenService,
  WebhookAttempt,
} from '@spillway/http';
import type { Registry } from 'prom-client';
import { createPostgresRouteStats, createPostgresStorage } from '@spillway/postgres';
import type { PostgresStorage } from '@spillway/postgres';
import { createSqliteRouteStats, createSqliteStorage } from '@spillway/sqlite';
import type { SqliteStorage } from '@spillway/sqlite';
import { createConfiguredAccountChannels } from './account-channels.ts';
import { bootstrap, createDemoAccount, logBootstrap } from './bootstrap.ts';
import { mountDesigner } from './designer-files.ts';
import { buildDrivers, loadDriversConfig } from './drivers-config.ts';
import type { BuiltDrivers } from './drivers-config.ts';
import type { ServerConfig } from './config.ts';
import type { CheckpointThreadData } from './checkpoint-thread.ts';
import type { WorkerThreadData } from './worker-thread.ts';
import { wakeAtMostEveryMs } from './wake.ts';
import { startThread, stopThread } from './threads.ts';
import { balanceConnections, connectionCounts, registerConnectionsGauge } from './connection-balance.ts';
import type { ConnectionBalance } from './connection-balance.ts';
import { startHttpThreads } from './http-threads.ts';
import { poolCounts, registerDbPoolGauges, samplePool, sampledPool } from './db-pool-metrics.ts';
import type { PoolCounts, PoolState } from './db-pool-metrics.ts';
import { createWriteFlag, openWriteFlag, type WriteFlag } from './write-flag.ts';
import { createWorkerWatch } from './worker-watch.ts';
import type { HttpThreads } from './http-threads.ts';

export interface SpillwayServer {
  engine: Engine;
  /** The simulator serving every channel `SPILLWAY_CONFIG` leaves to it; `sent` lists the attempts it was handed. */
  simulator: ReturnType<typeof createSimulator>;
  /** The drivers configured by `SPILLWAY_CONFIG`, accounts' own included (none without it). */
  drivers: ChannelDriver[];
  /** Chat hub and client token issuing, verification, key rotation. */
  tokens: TokenService;
  storage: Storage;
  /**
   * Answers a request as the server does, without a listener: the storage is migrated and the
   * signing keys loaded when `createServer` resolves, so it serves before `listen()` (the OpenAPI
   * writer, tests), though no worker runs until then.
   */
  fetch: (request: Request) => Response | Promise<Response>;
  /** Listens on `config.PORT` (0 picks a free port) and answers the bound port. */
  listen(): Promise<{ port: number; url: string }>;
  /**
   * Stops within one deadline (see the method). `deadline`: ms since the epoch on the server's
   * clock, the one its HTTP thread's shutdown took (a thread's server). @default now + SPILLWAY_SHUTDOWN_GRACE_MS
   */
  close(options?: { deadline?: number }): Promise<void>;
  logger: Logger;
}

export interface CreateServerOptions {
  /**
   * The engine's clock. A clock other than the system's cannot be shared with other threads: the
   * server then runs its workers and its HTTP on this thread alone (no `SPILLWAY_WORKER_THREAD`,
   * one `SPILLWAY_HTTP_THREADS`), so that every request and round reads it.
   */
  clock?: Clock;
  /**
   * Create the `demo` account on a first start without bootstrap configuration, once `listen()`
   * succeeded, logging its credentials. @default true
   */
  demoAccount?: boolean;
  logger?: Logger;
  /** Ensure the bootstrap account at start (and the demo account at `listen()`). @default true */
  bootstrap?: boolean;
  /** Folder of the designer's build, served at `/designer/`; false: no designer. @default apps/designer/dist */
  designerDir?: string | false;
  /** Another thread checkpoints the SQLite file (the workers' thread of a server that runs one): commits only as a backstop. */
  checkpointsElsewhere?: boolean;
  /** This process's worker id in leases and heartbeats (the workers' thread gets the one its HTTP thread hands over to). */
  workerId?: string;
  /** Observes every committed worker round (the workers' thread counts them for the HTTP thread's `/metrics`). */
  onCommit?: (commit: Commit) => void;
  /** Observes every webhook delivery attempt (the workers' thread counts them for the HTTP thread's `/metrics`). */
  onWebhookAttempt?: (attempt: WebhookAttempt) => void;
  /**
   * Called when the workers' thread ended on its own (an error it did not survive): nothing is
   * sent from this process any more, while its API would go on accepting. `spillway serve` stops
   * the server and exits 1, so that a supervisor starts it again. @default logged only
   */
  onWorkersFailed?: (error: Error) => void;
  /** Observes what happens to the drivers (the workers' thread posts it for the HTTP thread's `/metrics`). */
  onDriverEvent?: (event: DriverEvent) => void;
  /** The HTTP thread's {@link WriteFlag} (the workers' thread of a SQLite file): its commits wait for a running ingest, then raise it. */
  writeFlag?: SharedArrayBuffer;
  /**
   * Collect Prometheus metrics on a registry of this server's own. The workers' thread collects
   * none (its counts go to the HTTP thread through `onCommit` and `onWebhookAttempt`). @default true
   */
  metrics?: boolean;
  /** This server is one of the extra HTTP threads of another (`SPILLWAY_HTTP_THREADS`): what it shares with it. */
  httpThread?: HttpThreadRole;
  /**
   * This server runs on a thread of another's (an extra HTTP thread, the workers' thread): on
   * PostgreSQL it copies its pool's counts into these cells, for the main thread's `/metrics`.
   */
  poolCounts?: { counts: PoolCounts; index: number };
}

/** What an extra HTTP thread's server ({@link CreateServerOptions.httpThread}) shares with the main thread's. */
export interface HttpThreadRole {
  /** A handle of its own on the main thread's listening socket, to accept on. */
  listener: unknown;
  balance: ConnectionBalance;
  shared: HttpSharedState;
  /** Counts its requests; its `/metrics` answers the main thread's registry. */
  registry: Registry;
  /** New work was stored (`EngineOptions.onWork`): the main thread wakes the workers. */
  onWork: (handedOver: readonly number[]) => void;
  /** The workers' thread's id: accepted messages are stored leased to it. */
  handOverTo: string | undefined;
  /** Answers its sends, the direct route's and the app's (through the main thread). */
  sendsElsewhere: SendsElsewhere;
}

/** The SQLite file of a configuration, or null for PostgreSQL and an in-memory database. */
function sqliteFile(config: ServerConfig): string | null {
  return config.DATABASE_URL?.startsWith('postgres') || config.SPILLWAY_DB === ':memory:' ? null : config.SPILLWAY_DB;
}

function openStorage(config: ServerConfig, checkpointsElsewhere: boolean, logger: Logger): SqliteStorage | PostgresStorage {
  if (config.DATABASE_URL?.startsWith('postgres')) {
    return createPostgresStorage({
      connectionString: config.DATABASE_URL,
      schema: config.SPILLWAY_PG_SCHEMA,
      // A request waits this long for a lock or a connection of the pool, then is answered 503.
      busyTimeoutMs: config.SPILLWAY_DB_BUSY_TIMEOUT_MS,
      // A dropped connection is logged; the pool opens another (unheard, it ended the process).
      onConnectionError: (error) => logger.warn({ err: error }, 'a PostgreSQL connection was dropped: the pool opens another'),
    });
  }
  return createSqliteStorage({
    filename: config.SPILLWAY_DB,
    busyTimeoutMs: config.SPILLWAY_DB_BUSY_TIMEOUT_MS,
    ...(checkpointsElsewhere ? { walAutocheckpointPages: BACKSTOP_CHECKPOINT_PAGES } : {}),
  });
}

/**
 * The storage of a configuration, opened and migrated; a failure names the variable to look at
 * (it said "unable to open database file", "file is not a database" or "connect ECONNREFUSED").
 */
async function openMigrated(config: ServerConfig, checkpointsElsewhere: boolean, logger: Logger): Promise<SqliteStorage | PostgresStorage> {
  let storage: SqliteStorage | PostgresStorage | undefined;
  try {
    storage = openStorage(config, checkpointsElsewhere, logger);
    await storage.migrate();
    return storage;
  } catch (error) {
    await storage?.close().catch(() => undefined);
    const reason = error instanceof Error ? error.message : String(error);
    if (!config.DATABASE_URL?.startsWith('postgres')) {
      throw new Error(`SPILLWAY_DB: cannot use the SQLite file "${config.SPILLWAY_DB}": ${reason}`, { cause: error });
    }
    // The URL without its credentials.
    const url = URL.canParse(config.DATABASE_URL) ? new URL(config.DATABASE_URL) : null;
    const where = url ? `${url.host}${url.pathname}` : 'the configured server';
    throw new Error(`DATABASE_URL: cannot use PostgreSQL at ${where} (schema ${config.SPILLWAY_PG_SCHEMA}): ${reason}`, { cause: error });
  }
}

/** Listens, or fails naming the variables of the address (it said only "listen EADDRINUSE ..."). */
async function listenOrName<T>(listen: () => Promise<T>, port: number, host: string, variables: string): Promise<T> {
  try {
    return await listen();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`${variables}: cannot listen on ${host}:${port}: ${reason}`, { cause: error });
  }
}

/** A login's account id, remembered once found (logins never change). */
function accountIdOf(storage: Storage): (login: string) => Promise<number | undefined> {
  const found = new Map<string, number>();
  return async (login) => {
    const known = found.get(login);
    if (known !== undefined) return known;
    const account = (await storage.findAccountByLogin(login))?.account;
    if (account) found.set(login, account.id);
    return account?.id;
  };
}

/** The reference server: SQLite storage, simulator channels, the whole HTTP API. */
export async function createServer(config: ServerConfig, options: CreateServerOptions = {}): Promise<SpillwayServer> {
  const logger = options.logger ?? pino({ level: config.SPILLWAY_LOG_LEVEL });
  // The workers run on a thread of their own unless they cannot share the database (in memory);
  // a SQLite file is then checkpointed by a third thread, so that neither commit does it.
  // A clock of the caller's (a test's fake one) cannot cross to another thread, whose engine would
  // keep the system's time: with one, the server runs on this thread alone.
  const ownClock = options.clock !== undefined && options.clock !== systemClock;
  const threaded =
    config.SPILLWAY_ROLE === 'all' &&
    config.SPILLWAY_WORKER_THREAD &&
    !ownClock &&
    !(config.SPILLWAY_DB === ':memory:' && !config.DATABASE_URL);
  const checkpointFile = threaded ? sqliteFile(config) : null;
  const storage = await openMigrated(config, checkpointFile !== null || options.checkpointsElsewhere === true, logger);
  // A thread of another server's says how its PostgreSQL pool is doing, for that server's /metrics.
  const stopSampling =
    options.poolCounts && 'pool' in storage ? samplePool(storage.pool, options.poolCounts.counts, options.poolCounts.index) : null;
  // The HTTP thread's ingests and the workers' thread's commits say when they hold the write lock.
  const writeFlag = options.writeFlag ? openWriteFlag(options.writeFlag) : checkpointFile !== null ? createWriteFlag() : null;
  if (options.writeFlag) writeFlag?.markCommits(storage);
  else writeFlag?.markIngests(storage);
  // The public origin is known once the server listens (PORT=0 picks a port); short links and driver callbacks read it late.
  /**
   * The origin providers are given for their callbacks without SPILLWAY_PUBLIC_URL: the address
   * the server listens on, or 127.0.0.1 for a wildcard one (`0.0.0.0`, `::`), which names no host
   * a provider could call (a Kannel dlr-url of http://0.0.0.0:8080 reached only a local Kannel).
   */
  const wildcard = isWildcardHost(config.HOST);
  const callbackOrigin = (port: number) => config.SPILLWAY_PUBLIC_URL ?? listenOrigin(config.HOST, port);
  let publicUrl = callbackOrigin(config.PORT);
  const configured: BuiltDrivers = config.SPILLWAY_CONFIG
    ? buildDrivers(await loadDriversConfig(config.SPILLWAY_CONFIG), process.env, () => publicUrl, accountIdOf(storage))
    : { channels: [], all: [], unconfigured: [], accounts: new Map(), ownerOf: new Map() };
  const accountChannels = configured.accounts.size > 0 ? createConfiguredAccountChannels(configured.accounts, storage) : undefined;
  const simulator = createSimulator({
    latencyMs: config.SPILLWAY_SIMULATOR_LATENCY_MS,
    keepSent: SIMULATOR_KEEPS_SENT,
    ...(config.SPILLWAY_CONFIG ? { channels: configured.unconfigured } : {}),
  });
  const workers = config.SPILLWAY_ROLE !== 'api' && !threaded;
  const httpThread = options.httpThread;
  // Extra HTTP threads need a database every thread can open; they share the limits' state.
  const httpThreads =
    httpThread || ownClock || config.SPILLWAY_ROLE === 'worker' || (config.SPILLWAY_DB === ':memory:' && !config.DATABASE_URL)
      ? 1
      : config.SPILLWAY_HTTP_THREADS;
  const shared = httpThread?.shared ?? (httpThreads > 1 ? createHttpSharedState() : undefined);
  const counts = httpThreads > 1 ? connectionCounts(httpThreads) : null;
  /**
   * The PostgreSQL pools of this process's other threads (the extra HTTP threads' at their index,
   * the workers' thread's after them), for this thread's /metrics; not on a thread of another's.
   */
  const dbPools = 'pool' in storage && !httpThread && !options.poolCounts ? poolCounts(httpThreads + 1) : null;
  let httpThreadsRunning: HttpThreads | null = null;
  let thread: Worker | null = null;
  const threadWorkerId = `${hostname()}-${process.pid}-workers-${randomUUID()}`;
  /** Ids handed over to the workers' thread since its last wake-up. */
  let handedOver: number[] = [];
  const wakeThread = wakeAtMostEveryMs(WAKE_INTERVAL_MS, () => {
    if (handedOver.length > 0) thread?.postMessage({ handOver: handedOver });
    else thread?.postMessage('wake');
    handedOver = [];
  });
  const handOver = (ids: readonly number[]) => {
    for (const id of ids) handedOver.push(id);
    wakeThread();
  };
  let checkpoints: Worker | null = null;
  const email = config.SPILLWAY_SMTP_URL
    ? createSmtpTransport({ url: config.SPILLWAY_SMTP_URL, from: config.SPILLWAY_SMTP_FROM })
    : undefined;
  /**
   * Counts the live workers and the backlog for `/health` and `/metrics` (`docs/decisions.md`,
   * "Nobody sending"): in every process that answers them, not in the workers' thread (no
   * registry) nor in a worker process without SPILLWAY_METRICS_PORT (nothing answers them). Only a
   * process that accepts logs what it finds, and only its main thread.
   */
  const watch =
    options.metrics === false || (config.SPILLWAY_ROLE === 'worker' && config.SPILLWAY_METRICS_PORT === undefined)
      ? null
      : createWorkerWatch({
          storage,
          clock: options.clock ?? systemClock,
          logger: httpThread || config.SPILLWAY_ROLE === 'worker' ? undefined : logger,
        });
  const httpLogger: HttpLogger = {
    info: (message, meta) => logger.info(meta ?? {}, message),
    warn: (message, meta) => logger.warn(meta ?? {}, message),
    error: (message, meta) => logger.error(meta ?? {}, message),
  };
  // Everything an embedder gets from createSpillway; the server adds its configuration, the
  // bootstrap account, the designer and the workers' thread.
  const spillway = createSpillway({
    storage,
    // An extra HTTP thread counts on its own registry, whose scrapes the main thread answers.
    metrics: httpThread ? { registry: httpThread.registry, defaultMetrics: false } : (options.metrics ?? true),
    // Later drivers win a channel: configured ones over the simulator.
    channels: [simulator, ...configured.channels],
    clock: options.clock ?? systemClock,
    logger: httpLogger,
    ...(options.onDriverEvent ? { onDriverEvent: options.onDriverEvent } : {}),
    publicUrl: () => publicUrl,
    workers,
    // Incoming chat-app messages to callback URLs; refuses private addresses unless configured.
    webhooks: {
      pollMs: 250,
      ...(options.onWebhookAttempt ? { onAttempt: options.onWebhookAttempt } : {}),
    },
    allowPrivateUrls: config.SPILLWAY_ALLOW_PRIVATE_URLS,
    chatHub: config.SPILLWAY_JWT_SECRET ? { jwtSecret: config.SPILLWAY_JWT_SECRET } : true,
    routeStats: 'db' in storage ? createSqliteRouteStats(storage.db) : createPostgresRouteStats(storage.pool, storage.schema),
    engine: {
      // Messages accepted due now go leased to the workers' thread, their ids with its wake-ups
      // (an extra HTTP thread's through the main thread).
      ...(threaded ? { onWork: handOver, handOverTo: () => (thread ? threadWorkerId : undefined) } : {}),
      ...(httpThread ? { onWork: httpThread.onWork, ...(httpThread.handOverTo ? { handOverTo: httpThread.handOverTo } : {}) } : {}),
      ...(options.workerId ? { workerId: options.workerId } : {}),
      // The workers' thread reads its next round's hand-overs while an ingest holds the lock its commit waits for.
      ...(options.writeFlag && writeFlag ? { writerBusy: writeFlag.ingesting } : {}),
      ...(options.onCommit ? { onCommit: options.onCommit } : {}),
      ...(config.SPILLWAY_RATE_CARD ? { rateCard: parseRateCard(JSON.parse(config.SPILLWAY_RATE_CARD)) } : {}),
      // The workers' errors: createSpillway's (a busy database a warning, anything else an error).
      reachabilityTtlSeconds: config.SPILLWAY_REACHABILITY_TTL,
      ...(accountChannels ? { accountChannels } : {}),
    },
    http: {
      ...(config.SPILLWAY_ADMIN_KEY ? { adminKey: config.SPILLWAY_ADMIN_KEY } : {}),
      ...(email ? { email } : {}),
      social: {
        verifyToken: config.SPILLWAY_SOCIAL_VERIFY_TOKEN,
        appSecret: config.SPILLWAY_SOCIAL_APP_SECRET,
        clientId: config.SPILLWAY_SOCIAL_CLIENT_ID,
        authorizeUrl: config.SPILLWAY_SOCIAL_AUTHORIZE_URL,
        tokenUrl: config.SPILLWAY_SOCIAL_TOKEN_URL,
        redirectUri: config.SPILLWAY_SOCIAL_REDIRECT_URI,
        graphUrl: config.SPILLWAY_SOCIAL_GRAPH_URL,
        tokenKey: config.SPILLWAY_SOCIAL_TOKEN_KEY,
        allowPrivateUrls: config.SPILLWAY_ALLOW_PRIVATE_URLS,
      },
      rateLimits: { messaging: config.SPILLWAY_RATE_MESSAGING, data: config.SPILLWAY_RATE_DATA },
      ...(shared ? { shared } : {}),
      ...(httpThread ? { sendsElsewhere: httpThread.sendsElsewhere } : {}),
      ...(config.SPILLWAY_GATEWAY_SECRET ? { gatewaySecret: config.SPILLWAY_GATEWAY_SECRET } : {}),
      ...(watch ? { liveWorkers: watch.live } : {}),
      extraRoutes:
        options.designerDir === false
          ? []
          : [(root: Parameters<typeof mountDesigner>[0]) => mountDesigner(root, options.designerDir || undefined)],
    },
  });
  const { engine } = spillway;
  // The workers' thread's rounds reach /metrics through this thread's registry.
  const threadMetrics = spillway.registry ? createEngineMetrics(spillway.registry) : null;
  // Its webhook deliveries too (the thread runs them): counted from zero on /metrics from the start.
  const threadWebhookMetrics = threaded && spillway.registry ? createWebhookMetrics(spillway.registry) : null;
  // And its drivers' binds, breakers and refused incoming messages (the thread runs the drivers).
  const threadDriverMetrics = threaded && spillway.registry ? createDriverMetrics(spillway.registry) : null;
  // The live workers and the backlog, on the registry this process serves (an extra HTTP thread's is the main thread's).
  const workerMetrics = watch && spillway.registry && !httpThread ? createWorkerMetrics(spillway.registry) : null;
  const startWatch = () => watch?.start(workerMetrics?.record);
  // The PostgreSQL pools of the threads running now: this one's read live, the others' sampled.
  if (dbPools && 'pool' in storage && spillway.registry) {
    registerDbPoolGauges(spillway.registry, () => {
      const pools: Array<[string, PoolState]> = [['0', storage.pool]];
      if (httpThreadsRunning) for (let i = 1; i < httpThreads; i++) pools.push([String(i), sampledPool(dbPools, i)]);
      if (thread) pools.push(['workers', sampledPool(dbPools, httpThreads)]);
      return pools;
    });
  }
  const recordCounts: ThreadCounts = {
    engine: (counts) => threadMetrics?.record(counts),
    webhooks: (attempts) => threadWebhookMetrics?.record(attempts),
    drivers: (events) => threadDriverMetrics?.record(events),
  };
  const tokens = spillway.tokens!;
  // Generates and persists the signing key on the first start.
  await tokens.ready();
  if (options.bootstrap !== false) logBootstrap(logger, await bootstrap(engine, config, { demo: false }));
  const demo = options.bootstrap !== false && (options.demoAccount ?? true) && !config.SPILLWAY_BOOTSTRAP_LOGIN;
  /**
   * The demo account is created once the server listens, its credentials logged with it: created
   * before, a start that then failed to listen (a port taken) logged credentials of a server that
   * never ran, and the next start, finding the account, had none to show.
   */
  const createDemo = async () => {
    const created = demo ? await createDemoAccount(engine) : null;
    if (created?.generated) {
      logger.warn(
        { login: created.login, password: created.generated.password, apiKey: created.generated.key, alphaName: 'Spillway' },
        'created the demo account: keep these credentials, they are shown once',
      );
    }
  };
  if (accountChannels && options.bootstrap !== false) {
    // Not an error: the account may be created later (its drivers serve it from its first send),
    // but a typo in a login would otherwise go unnoticed.
    for (const login of await accountChannels.unknownLogins()) {
      logger.warn(
        { login, drivers: configured.accounts.get(login)?.map((d) => d.name) },
        'SPILLWAY_CONFIG accounts: no account has this login yet; its drivers serve it once it is created',
      );
    }
  }
  let listening: { port: number; close(): Promise<void>; unanswered(): number } | null = null;
  // A workers-only process has no socket open, and the engine's timers never keep a process
  // alive: this handle does, from listen() until close().
  let keepAlive: ReturnType<typeof setInterval> | null = null;
  /** A workers-only process's `/metrics` and `/health` (SPILLWAY_METRICS_PORT). */
  let metricsListener: MetricsListener | null = null;
  let closing = false;
  /** The workers' thread ended without being asked to (not by close()). */
  const workersFailed = (error: Error) => {
    if (closing) return;
    logger.error({ err: error }, "the workers' thread ended: this process sends nothing until it is restarted");
    options.onWorkersFailed?.(error);
  };

  return {
    engine,
    simulator,
    drivers: configured.all,
    tokens,
    storage,
    logger,
    // spillway.fetch answers 503 until start(), which listen() calls: the app itself is ready now,
    // and spillway.fetch again once close() began (its 503 of a stopped server).
    fetch: (request) => (closing ? spillway.fetch(request) : spillway.app.fetch(request)),
    async listen() {
      // Starts the workers of this process, if it runs them.
      await spillway.start();
      if (config.SPILLWAY_ROLE === 'worker') {
        await startWatch();
        if (config.SPILLWAY_METRICS_PORT !== undefined && spillway.registry && !metricsListener) {
          const port = config.SPILLWAY_METRICS_PORT;
          metricsListener = await listenOrName(
            () => listenForMetrics(spillway.registry!, () => watch?.live(), port, config.HOST),
            port,
            config.HOST,
            'SPILLWAY_METRICS_PORT, HOST',
          );
          logger.info({ role: 'worker', metrics: metricsListener.url }, 'spillway worker metrics are served');
        }
        keepAlive ??= setInterval(() => undefined, 2 ** 30);
        await createDemo();
        logger.info({ role: 'worker' }, 'spillway workers are running');
        return { port: metricsListener?.port ?? 0, url: metricsListener?.url ?? '' };
      }
      // Only a workers-only process serves metrics on a port of its own: said, not silently ignored.
      if (config.SPILLWAY_METRICS_PORT !== undefined && !httpThread) {
        logger.warn(
          { SPILLWAY_METRICS_PORT: config.SPILLWAY_METRICS_PORT, role: config.SPILLWAY_ROLE },
          'SPILLWAY_METRICS_PORT is for SPILLWAY_ROLE=worker only: this process serves /metrics on its API port',
        );
      }
      const origin = (port: number) => `http://${config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${port}`;
      // The workers' thread starts before the port opens (a server that answers is a server that
      // sends), unless the public origin is only known once a free port was picked.
      const known = config.SPILLWAY_PUBLIC_URL ?? (config.PORT !== 0 ? callbackOrigin(config.PORT) : null);
      if (checkpointFile && !checkpoints) checkpoints = await startCheckpointThread(checkpointFile, logger);
      if (threaded && known)
        thread = await startWorkerThread(
          { ...config, SPILLWAY_PUBLIC_URL: known },
          threadWorkerId,
          writeFlag,
          logger,
          recordCounts,
          workersFailed,
          dbPools ? { counts: dbPools, index: httpThreads } : undefined,
        );
      // Counted before the port opens, so that the first /health says it; after the workers' thread,
      // if it started, so that it is counted (else its heartbeat comes within a period).
      await startWatch();
      const running = await listenOrName(
        () =>
          serve({
            fetch: spillway.fetch,
            direct: spillway.direct,
            ...(httpThread ? { handle: httpThread.listener } : { port: config.PORT, hostname: config.HOST }),
          }),
        config.PORT,
        config.HOST,
        'PORT, HOST',
      );
      listening = running;
      const url = origin(running.port);
      if (!config.SPILLWAY_PUBLIC_URL) publicUrl = callbackOrigin(running.port);
      if (wildcard && !config.SPILLWAY_PUBLIC_URL && config.SPILLWAY_CONFIG) {
        logger.warn(
          { HOST: config.HOST, callbackOrigin: publicUrl },
          'SPILLWAY_PUBLIC_URL is not set: providers are given callback URLs on 127.0.0.1, which only a provider on this machine can call; set it to the URL providers reach this server at',
        );
      }
      if (httpThread) {
        balanceConnections(running.server, httpThread.balance);
        return { port: running.port, url };
      }
      if (threaded && !thread)
        thread = await startWorkerThread(
          { ...config, SPILLWAY_PUBLIC_URL: publicUrl },
          threadWorkerId,
          writeFlag,
          logger,
          recordCounts,
          workersFailed,
          dbPools ? { counts: dbPools, index: httpThreads } : undefined,
        );
      if (counts && shared && !httpThreadsRunning) {
        // The others accept from the same socket with descriptors of their own; this thread writes.
        httpThreadsRunning = await startHttpThreads({
          count: httpThreads - 1,
          data: {
            config: { ...config, SPILLWAY_PUBLIC_URL: publicUrl },
            fd: (running.server as unknown as { _handle: { fd: number } })._handle.fd,
            shared,
            counts,
            handOverTo: threaded ? threadWorkerId : undefined,
            designerDir: options.designerDir,
            ...(dbPools ? { poolCounts: dbPools } : {}),
          },
          registry: spillway.registry,
          // Their acceptances were leased to the workers' thread: hand them over with this thread's.
          onWork: threaded ? handOver : () => engine.wake(),
          send: (accountId, body) => answerSend({ engine, logger: httpLogger }, accountId, body),
          logger,
        }).catch((error: unknown) => {
          // This thread serves alone: slower, not wrong.
          logger.error({ err: error }, 'the extra HTTP threads did not start: serving from one thread');
          return null;
        });
        if (httpThreadsRunning) {
          // Connections made meanwhile are counted from their next request on.
          balanceConnections(running.server, { ...counts, index: 0, writer: true });
          if (spillway.registry) registerConnectionsGauge(spillway.registry, counts);
        }
      }
      await createDemo();
      logger.info(
        {
          url,
          workers: threaded ? 'thread' : config.SPILLWAY_ROLE === 'api' ? 'none' : 'in process',
          httpThreads: httpThreadsRunning ? httpThreads : 1,
        },
        'spillway is listening',
      );
      return { port: running.port, url };
    },
    /**
     * Stops cleanly within one deadline, `SPILLWAY_SHUTDOWN_GRACE_MS` from the call: requests are
     * answered 503 from now on and no connection is accepted (kept-alive ones are closed after
     * their answer), then, each with what is left of the deadline, the HTTP threads answer what
     * they hold, the workers finish the round in flight, wait for the sends in flight, apply
     * every report that arrived and retire (so that the next process adopts what is still awaited
     * at once), and the storage closes last. Past the deadline, what is done is recorded for
     * `STOP_SETTLE_MS` more; what still runs is left as a crash leaves it, logged at warn.
     */
    async close(closeOptions = {}) {
      closing = true;
      spillway.stopRequests();
      const clock = options.clock ?? systemClock;
      const deadline = closeOptions.deadline ?? clock.now() + config.SPILLWAY_SHUTDOWN_GRACE_MS;
      // The clock's timers keep nothing alive: the stop does, until it is done.
      const alive = setInterval(() => undefined, 60_000);
      const left: Record<string, unknown> = {};
      try {
        // Every HTTP thread stops listening and answers what it holds (the other threads log what
        // they left). A request still unanswered at the deadline keeps its connection until the
        // process ends: its commit, if it comes, is answered while the storage closes.
        const httpThreadsStopped = httpThreadsRunning?.stop(deadline);
        if (!(await settledBy(Promise.all([listening?.close(), httpThreadsStopped]), deadline, clock))) {
          const unanswered = listening?.unanswered() ?? 0;
          if (unanswered > 0) left['requestsUnanswered'] = unanswered;
          else left['httpThreadsAnswering'] = true;
        }
        if (!(await settledBy(metricsListener?.close(), deadline, clock))) left['metricsRequestsUnanswered'] = true;
        await settledBy(watch?.stop(), deadline, clock);
        // The workers' thread logs what its engine left; one that did not stop in time is ended.
        if (thread && !(await stopThread(thread, deadline))) left['workersThread'] = 'ended';
        if (checkpoints && !(await stopThread(checkpoints, deadline))) left['checkpointThread'] = 'ended';
        // Their sends are this thread's to answer (its storage closes last); ended by now if late.
        if (httpThreadsStopped && !(await httpThreadsStopped)) left['httpThreads'] = 'ended';
        if (Object.keys(left).length > 0) {
          logger.warn(
            { graceMs: config.SPILLWAY_SHUTDOWN_GRACE_MS, ...left },
            'the shutdown reached its deadline (SPILLWAY_SHUTDOWN_GRACE_MS): what still ran is left as a crash leaves it',
          );
        }
        // The engine (sends in flight get what is left), webhook deliveries, drivers, the storage
        // last; it logs what it left.
        await spillway.stop({ graceMs: Math.max(0, deadline - clock.now()) });
        email?.close();
      } finally {
        clearInterval(alive);
        // Held through the stop, let go even when the stop fails.
        if (keepAlive) clearInterval(keepAlive);
        stopSampling?.();
      }
    },
  };
}

/** Records what the workers' thread counted, on this thread's registry. */
interface ThreadCounts {
  engine: (counts: EngineCounts) => void;
  webhooks: (attempts: readonly WebhookAttempt[]) => void;
  drivers: (events: readonly DriverEvent[]) => void;
}

/** Starts the workers' thread and resolves once it runs. */
async function startWorkerThread(
  config: ServerConfig,
  workerId: string,
  writeFlag: WriteFlag | null,
  logger: Logger,
  record: ThreadCounts,
  failed: (error: Error) => void,
  pools: WorkerThreadData['poolCounts'],
): Promise<Worker> {
  const thread = await startThread('worker-thread', {
    config,
    workerId,
    ...(writeFlag ? { writeFlag: writeFlag.buffer } : {}),
    ...(pools ? { poolCounts: pools } : {}),
  } satisfies WorkerThreadData);
  // The thread's rounds, counted there: this thread's registry serves /metrics.
  thread.on('message', (message: unknown) => {
    if (typeof message !== 'object' || message === null) return;
    if ('engineCounts' in message) record.engine(message.engineCounts as EngineCounts);
    if ('webhookAttempts' in message) record.webhooks(message.webhookAttempts as WebhookAttempt[]);
    if ('driverEvents' in message) record.drivers(message.driverEvents as DriverEvent[]);
  });
  // An error ends the thread: its exit says so, once.
  let error: Error | undefined;
  thread.on('error', (e) => (error = e));
  thread.once('exit', (code) => {
    // Ended inside a commit, it would leave every ingest waiting for the commit's end.
    writeFlag?.clearCommits();
    failed(error ?? new Error(`the workers' thread exited with code ${code}`));
  });
  return thread;
}

/**
 * The HTTP thread wakes the workers' thread at most this often (each wake-up is a message across
 * threads, tens of microseconds on a busy machine): the workers' rounds gather for 2 ms anyway.
 */
const WAKE_INTERVAL_MS = 2;

/**
 * The attempts the simulator holds in `sent` at most: enough for a test to find the attempt of a
 * message it just sent, and few enough that under load they die young (with the simulator's
 * default of ten thousand, each one outlived the workers' young collections, which copied and
 * promoted it: `docs/decisions.md`, "Speed, twenty-fourth pass").
 */
const SIMULATOR_KEEPS_SENT = 1_000;

/** How often the checkpoint thread copies the SQLite log into the database file, ms. */
const CHECKPOINT_INTERVAL_MS = 200;
/** The backstop of the HTTP and workers' threads: past this many log pages a commit checkpoints itself. */
const BACKSTOP_CHECKPOINT_PAGES = 10_000;

/** Starts the thread that checkpoints the SQLite file `filename`, and resolves once it runs. */
async function startCheckpointThread(filename: string, logger: Logger): Promise<Worker> {
  const thread = await startThread('checkpoint-thread', { filename, intervalMs: CHECKPOINT_INTERVAL_MS } satisfies CheckpointThreadData);
  thread.on('message', (message: unknown) => {
    if (typeof message === 'object' && message !== null && 'error' in message) logger.warn({ error: message.error }, 'checkpoint failed');
  });
  thread.on('error', (error) => logger.error({ err: error }, 'the checkpoint thread failed: commits checkpoint the log themselves'));
  return thread;
}

interface MetricsListener {
  port: number;
  url: string;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` (the registry, Prometheus text) and `GET /health` (with the live workers
 * as last counted) on `port` for a workers-only process; anything else is a JSON 404 (405 for another method on those paths).
 */
async function listenForMetrics(
  registry: Registry,
  liveWorkers: () => number | undefined,
  port: number,
  host: string,
): Promise<MetricsListener> {
  /** Answers `body` as JSON with `status`. */
  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const error = (res: ServerResponse, body: ErrorBody, headers: Record<string, string> = {}) => json(res, body.status, body, headers);
  const server = createHttpServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' && path !== '/health') {
      error(res, { error: 'not_found', message: `No such endpoint ${path}: a worker process serves /metrics and /health`, status: 404 });
    } else if (req.method !== 'GET' && req.method !== 'HEAD') {
      error(res, { error: 'method_not_allowed', message: `${req.method} is not allowed on ${path}`, status: 405 }, { allow: 'GET, HEAD' });
    } else if (path === '/health') {
      json(res, 200, { ...healthBody(liveWorkers()), role: 'worker' });
    } else {
      registry.metrics().then(
        (text) => {
          res.writeHead(200, { 'content-type': registry.contentType });
          res.end(text);
        },
        (failure: unknown) => error(res, { error: 'internal', message: `metrics failed: ${String(failure)}`, status: 500 }),
      );
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    port: bound,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // A scraper's kept-alive connection would hold the close until it timed out.
        server.closeIdleConnections();
      }),
  };
}
