import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { addRequestCounts, createDriverMetrics, INTERNAL_ERROR_BODY } from '@spillway/http';
import type { DriverEvent, HttpSharedState, RequestCounts, SendAnswer } from '@spillway/http';
import type { ServerConfig } from './config.ts';
import type { ConnectionCounts } from './connection-balance.ts';
import { startThread, stopThread } from './threads.ts';
import type { PoolCounts } from './db-pool-metrics.ts';

/** What the main thread gives each extra HTTP thread. */
export interface HttpThreadData {
  config: ServerConfig;
  /** The thread's index among the HTTP threads (the main thread is 0). */
  index: number;
  /** The descriptor of the main thread's listening socket: the thread gets a descriptor of its own for it. */
  fd: number;
  shared: HttpSharedState;
  counts: ConnectionCounts;
  /** The workers' thread's id, when the process runs one: the thread's acceptances are leased to it. */
  handOverTo: string | undefined;
  designerDir: string | false | undefined;
  /** Where the thread's PostgreSQL pool counts go (at its index), for the main thread's `/metrics`. */
  poolCounts?: PoolCounts;
}

/**
 * What an extra HTTP thread posts to the main thread: new work (messages it handed over to the
 * workers' thread, or none: a wake-up), its request counts, what its drivers' callbacks met (an
 * incoming message refused), or a scrape of `/metrics` it serves with the main thread's registry
 * (after adding its own counts).
 */
export type HttpThreadMessage =
  | { work: number[] }
  | { driverEvents: DriverEvent[] }
  | { requestCounts: RequestCounts }
  | { metricsRequest: number; requestCounts: RequestCounts }
  | { send: number; accountId: number; body: string };

/** What the main thread answers a send of an extra thread's: the send route's answer. */
export interface SentAnswer {
  sent: number;
  answer: SendAnswer;
}

/** What the main thread answers a scrape: the registry's text. */
export interface MetricsAnswer {
  metrics: number;
  text: string;
}

/** The extra HTTP threads of a server. */
export interface HttpThreads {
  /** Asks every thread to stop listening and answer what it holds by `deadline` (see `stopThread`); answers whether all of them did. */
  stop(deadline: number): Promise<boolean>;
}

/**
 * Starts `count` HTTP threads beside the main thread, each accepting from the main thread's
 * listening socket (`fd`) with an app of its own over its own database connection, sharing the
 * rate limits and login counts (`shared`) and the connection counts (`counts`). Their sends are
 * answered by `send` (this thread: the one writer of acceptances, no thread waiting for another's
 * write lock), their new work goes to `onWork`, their request counts to `registry`, which serves
 * `/metrics` for all of them.
 */
export async function startHttpThreads(options: {
  count: number;
  data: Omit<HttpThreadData, 'index'>;
  registry: Registry | undefined;
  onWork: (ids: readonly number[]) => void;
  /** Answers the threads' sends (`answerSend` over this thread's engine: the one writer of acceptances). */
  send: (accountId: number, body: string) => Promise<SendAnswer>;
  logger: Logger;
}): Promise<HttpThreads> {
  const { registry, logger } = options;
  const driverMetrics = registry ? createDriverMetrics(registry) : null;
  const threads: Worker[] = [];
  try {
    for (let i = 1; i <= options.count; i++) {
      const thread = await startThread('http-thread', { ...options.data, index: i } satisfies HttpThreadData);
      threads.push(thread);
      thread.on('message', (message: HttpThreadMessage | 'stopped') => {
        if (typeof message !== 'object') return;
        if ('work' in message) options.onWork(message.work);
        else if ('driverEvents' in message) driverMetrics?.record(message.driverEvents);
        else if ('send' in message) {
          const id = message.send;
          // answerSend answers every failure of the send itself; this catches only its own.
          void options
            .send(message.accountId, message.body)
            .catch((error: unknown): SendAnswer => {
              logger.error({ err: error }, 'a send of an HTTP thread failed on the main thread');
              return { status: 500, body: JSON.stringify(INTERNAL_ERROR_BODY) };
            })
            .then((answer) => thread.postMessage({ sent: id, answer } satisfies SentAnswer));
        } else {
          if (registry) addRequestCounts(registry, message.requestCounts);
          if ('metricsRequest' in message) {
            const id = message.metricsRequest;
            const answer = (text: string) => thread.postMessage({ metrics: id, text } satisfies MetricsAnswer);
            (registry ? registry.metrics() : Promise.resolve('')).then(answer, (error: unknown) =>
              answer(`# metrics failed: ${String(error)}\n`),
            );
          }
        }
      });
      thread.on('error', (error) => logger.error({ err: error, thread: i }, 'an HTTP thread failed: the other threads go on serving'));
    }
  } catch (error) {
    await Promise.all(threads.map((t) => t.terminate()));
    throw error;
  }
  return {
    stop: async (deadline) => (await Promise.all(threads.map((thread) => stopThread(thread, deadline)))).every(Boolean),
  };
}
