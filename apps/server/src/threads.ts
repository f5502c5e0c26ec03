import { Worker } from 'node:worker_threads';

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

/** Asks a thread to stop cleanly ('stop', answered 'stopped'), and ends it after `timeoutMs` at the latest. */
export async function stopThread(thread: Worker, timeoutMs: number): Promise<void> {
  // A thread that has ended already answers nothing: its stop would wait the whole timeout.
  if (thread.threadId === -1) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    thread.on('message', (message) => {
      if (message === 'stopped') done();
    });
    thread.once('exit', done);
    thread.postMessage('stop');
  });
  await thread.terminate();
}

/**
 * A thread's side of {@link stopThread}: closes its `server` (a failure is logged as `what`'s),
 * then runs `after` (its last counts, say) and answers 'stopped'.
 */
export function closeAndAnswerStopped(
  server: { close(): Promise<void>; logger: { error(meta: object, message: string): void } },
  what: string,
  after: () => void,
  answer: (message: 'stopped') => void,
): void {
  void server
    .close()
    .catch((error: unknown) => server.logger.error({ err: error }, `${what} stop failed`))
    .then(() => {
      after();
      answer('stopped');
    });
}
