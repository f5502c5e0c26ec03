import { Worker } from 'node:worker_threads';
import { STOP_SETTLE_MS } from '@spillway/core';

/** Starts the thread of `name` (a module next to this one) and resolves once it says 'ready'. */
export async function startThread(name: string, workerData: unknown): Promise<Worker> {
  // Built (dist/*.js) the thread runs its .js as it is. From source under tsx, the thread
  // registers tsx's loader itself (loader hooks of the main thread do not reach worker threads),
  // then loads the entry; it inherits `--conditions=@spillway/source` with the process's execArgv.
  const fromSource = import.meta.url.endsWith('.ts');
  const entry = new URL(`./${name}${fromSource ? '.ts' : '.js'}`, import.meta.url);
  let thread: Worker;
  if (fromSource) {
    const tsx = import.meta.resolve('tsx/esm/api');
    const code = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry.href)}); })`;
    thread = new Worker(code, { eval: true, workerData });
  } else {
    thread = new Worker(entry, { workerData });
  }
  await new Promise<void>((resolve, reject) => {
    thread.once('message', (message) => (message === 'ready' ? resolve() : reject(new Error(`${name} said ${String(message)}`))));
    thread.once('error', reject);
  });
  return thread;
}

/**
 * What a thread is told to stop by: the shutdown's deadline, ms since the epoch (threads share
 * the system clock: a server with a clock of its own runs none).
 */
export interface StopMessage {
  stop: number;
}

/** The deadline of a {@link StopMessage}, or undefined for any other message. */
export function stopDeadlineOf(message: unknown): number | undefined {
  return typeof message === 'object' && message !== null && 'stop' in message && typeof message.stop === 'number'
    ? message.stop
    : undefined;
}

/** How long past the deadline's settling time a thread's answer to its stop is waited for, ms (a message between threads). */
const THREAD_ANSWER_MS = 100;

/**
 * Asks a thread to stop cleanly by `deadline` (a {@link StopMessage}, answered 'stopped'), then ends
 * it, once it answered or once the deadline's settling time (`STOP_SETTLE_MS`) has passed. Answers
 * whether it stopped on its own in time.
 */
export async function stopThread(thread: Worker, deadline: number): Promise<boolean> {
  // A thread that has ended already answers nothing: its stop would wait the whole timeout.
  if (thread.threadId === -1) return true;
  const stopped = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), Math.max(0, deadline + STOP_SETTLE_MS + THREAD_ANSWER_MS - Date.now()));
    const done = () => {
      clearTimeout(timer);
      resolve(true);
    };
    thread.on('message', (message) => {
      if (message === 'stopped') done();
    });
    thread.once('exit', done);
    thread.postMessage({ stop: deadline } satisfies StopMessage);
  });
  // Its teardown is not waited for (a tenth of a second or more, measured, and a thread inside a
  // synchronous call, SQLite's wait for a lock, ends only when the call returns): its work is done
  // or left, and the process's exit ends it if nothing else does.
  thread.terminate().catch(() => undefined);
  return stopped;
}

/**
 * A thread's side of {@link stopThread}: closes its `server` by `deadline` (a failure is logged as
 * `what`'s), then runs `after` (its last counts, say) and answers 'stopped'.
 */
export function closeAndAnswerStopped(
  server: { close(options?: { deadline?: number }): Promise<void>; logger: { error(meta: object, message: string): void } },
  deadline: number,
  what: string,
  after: () => void,
  answer: (message: 'stopped') => void,
): void {
  void server
    .close({ deadline })
    .catch((error: unknown) => server.logger.error({ err: error }, `${what} stop failed`))
    .then(() => {
      after();
      answer('stopped');
    });
}
