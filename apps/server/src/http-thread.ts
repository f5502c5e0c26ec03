import { parentPort, workerData } from 'node:worker_threads';
import { Registry } from 'prom-client';
import { takeRequestCounts } from '@spillway/http';
import { createServer } from './create-server.ts';
import type { DriverEvent, SendAnswer } from '@spillway/http';
import type { HttpThreadData, HttpThreadMessage, MetricsAnswer, SentAnswer } from './http-threads.ts';
import { duplicateListener } from './listener-dup.ts';
import { closeAndAnswerStopped, stopDeadlineOf } from './threads.ts';

// One of the extra HTTP threads of a server (SPILLWAY_HTTP_THREADS): the whole API, as an `api`
// role over a database connection of its own, accepting from the main thread's listening socket
// through a descriptor of its own. The main thread posts a stop (`StopMessage`) on shutdown and the answers to its
// scrapes of /metrics; this thread posts 'ready', 'stopped', its new work and its request counts.

/** How often the thread sends its request counts to the main thread, ms. */
const COUNTS_FLUSH_MS = 200;

const port = parentPort;
if (!port) throw new Error('http-thread.ts runs as a worker thread');
const data = workerData as HttpThreadData;
const post = (message: HttpThreadMessage | 'ready' | 'stopped') => port.postMessage(message);

/** Questions to the main thread waiting for its answer, by id: `ask` posts one under a new id, `answered` settles it. */
function questions<T>() {
  const waiting = new Map<number, (answer: T) => void>();
  let next = 0;
  return {
    ask: (send: (id: number) => void) =>
      new Promise<T>((resolve) => {
        const id = ++next;
        waiting.set(id, resolve);
        send(id);
      }),
    answered(id: number, answer: T): void {
      waiting.get(id)?.(answer);
      waiting.delete(id);
    },
  };
}

/**
 * This thread's sends (the direct route's and the app's), answered by the main thread, the one
 * writer of acceptances, as text both ways: a thread writing its own would split the group commits
 * and wait for the other's write lock (SQLite's busy waits, in steps of up to 100 ms), and the
 * validated messages cost more to copy between threads than the text does.
 */
const sends = questions<SendAnswer>();
const sendsElsewhere = (accountId: number, body: string) => sends.ask((id) => post({ send: id, accountId, body }));

/** Scrapes of /metrics, answered with the main thread's text. */
const scrapes = questions<string>();

/** Counts this thread's requests; `/metrics` answers the main thread's registry, where the counts go. */
class ServedByMainThread extends Registry {
  override metrics(): Promise<string> {
    return scrapes.ask((id) => post({ metricsRequest: id, requestCounts: takeRequestCounts(this) }));
  }
}
const registry = new ServedByMainThread();
/** Incoming messages its drivers' callbacks (a Kannel `/mo`) could not hand over: counted by the main thread. */
let driverEvents: DriverEvent[] = [];
const flushCounts = () => {
  const counts = takeRequestCounts(registry);
  if (counts.length > 0) post({ requestCounts: counts });
  if (driverEvents.length > 0) post({ driverEvents });
  driverEvents = [];
};
const flushTimer = setInterval(flushCounts, COUNTS_FLUSH_MS);
flushTimer.unref();

const server = await createServer(
  // One thread of the API: no workers here (they run on the workers' thread or elsewhere).
  { ...data.config, SPILLWAY_ROLE: 'api', SPILLWAY_HTTP_THREADS: 1 },
  {
    bootstrap: false,
    designerDir: data.designerDir,
    // A SQLite file is checkpointed by the main thread's checkpoint thread.
    checkpointsElsewhere: true,
    onDriverEvent: (event) => void driverEvents.push(event),
    ...(data.poolCounts ? { poolCounts: { counts: data.poolCounts, index: data.index } } : {}),
    httpThread: {
      listener: await duplicateListener(data.fd),
      balance: { ...data.counts, index: data.index, writer: false },
      shared: data.shared,
      registry,
      onWork: (ids) => post({ work: [...ids] }),
      sendsElsewhere,
      handOverTo: data.handOverTo,
    },
  },
);
await server.listen();
port.on('message', (message: unknown) => {
  if (typeof message === 'object' && message !== null && 'sent' in message) {
    const { sent, answer } = message as SentAnswer;
    sends.answered(sent, answer);
  }
  if (typeof message === 'object' && message !== null && 'metrics' in message) {
    const { metrics, text } = message as MetricsAnswer;
    scrapes.answered(metrics, text);
  }
  const deadline = stopDeadlineOf(message);
  if (deadline !== undefined) {
    closeAndAnswerStopped(
      server,
      deadline,
      'HTTP thread',
      () => {
        clearInterval(flushTimer);
        flushCounts();
      },
      post,
    );
  }
});
post('ready');
