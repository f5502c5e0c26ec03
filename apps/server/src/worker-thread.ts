import { parentPort, workerData } from 'node:worker_threads';
import type { ServerConfig } from './config.ts';
import { countCommit } from '@spillway/http';
import type { DriverEvent, EngineCounts, WebhookAttempt } from '@spillway/http';
import { createServer } from './create-server.ts';
import type { PoolCounts } from './db-pool-metrics.ts';
import { closeAndAnswerStopped, stopDeadlineOf } from './threads.ts';

/** How often the thread sends its rounds' metric counts to the HTTP thread, ms. */
const METRICS_FLUSH_MS = 200;

// The workers of a reference server started with SPILLWAY_ROLE=all, on a thread of their own: the
// rounds never hold up the HTTP thread's event loop. The HTTP thread posts 'wake' when it stored
// new work, `{ handOver: ids }` when it stored messages leased to this thread's worker (`workerId`),
// and a stop (`StopMessage`, the shutdown's deadline) on shutdown; this thread answers 'ready' and
// 'stopped'.

/** What the HTTP thread gives the workers' thread. */
export interface WorkerThreadData {
  config: ServerConfig;
  /** The worker id the HTTP thread hands accepted messages over to. */
  workerId: string;
  /** The HTTP thread's write flag (a SQLite file): see `WriteFlag`. */
  writeFlag?: SharedArrayBuffer;
  /** Where this thread's PostgreSQL pool counts go, for the HTTP thread's `/metrics`. */
  poolCounts?: { counts: PoolCounts; index: number };
}

const port = parentPort;
if (!port) throw new Error('worker-thread.ts runs as a worker thread');
const { config, workerId, writeFlag, poolCounts } = workerData as WorkerThreadData;
// The rounds' metrics, counted here and sent to the HTTP thread, whose registry serves /metrics:
// at most every METRICS_FLUSH_MS, and once more when the thread stops.
let counts: EngineCounts = { events: [], finished: [] };
let webhookAttempts: WebhookAttempt[] = [];
// Its drivers' binds, breakers and refused incoming messages, in the order they happened (logged here).
let driverEvents: DriverEvent[] = [];
const flushCounts = () => {
  if (counts.events.length > 0 || counts.finished.length > 0) {
    port.postMessage({ engineCounts: counts });
    counts = { events: [], finished: [] };
  }
  if (webhookAttempts.length > 0) {
    port.postMessage({ webhookAttempts });
    webhookAttempts = [];
  }
  if (driverEvents.length > 0) {
    port.postMessage({ driverEvents });
    driverEvents = [];
  }
};
const flushTimer = setInterval(flushCounts, METRICS_FLUSH_MS);
flushTimer.unref();
const server = await createServer(
  // Its metrics go to the HTTP thread's /metrics: no port of its own.
  { ...config, SPILLWAY_ROLE: 'worker', SPILLWAY_WORKER_THREAD: false, SPILLWAY_METRICS_PORT: undefined },
  // The HTTP thread started the checkpoint thread of a SQLite file with this one.
  {
    bootstrap: false,
    designerDir: false,
    checkpointsElsewhere: true,
    workerId,
    // Counted for the HTTP thread, not on a registry here that nothing serves.
    metrics: false,
    onCommit: (commit) => void countCommit(commit, counts),
    onWebhookAttempt: (attempt) => void webhookAttempts.push(attempt),
    onDriverEvent: (event) => void driverEvents.push(event),
    ...(writeFlag ? { writeFlag } : {}),
    ...(poolCounts ? { poolCounts } : {}),
  },
);
await server.listen();
port.on('message', (message: unknown) => {
  if (message === 'wake') server.engine.wake();
  if (typeof message === 'object' && message !== null && 'handOver' in message) server.engine.handOver(message.handOver as number[]);
  const deadline = stopDeadlineOf(message);
  if (deadline !== undefined) {
    closeAndAnswerStopped(
      server,
      deadline,
      'worker thread',
      () => {
        clearInterval(flushTimer);
        flushCounts();
      },
      (stopped) => port.postMessage(stopped),
    );
  }
});
port.postMessage('ready');
