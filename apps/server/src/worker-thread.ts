import { parentPort, workerData } from 'node:worker_threads';
import type { ServerConfig } from './config.ts';
import { createServer } from './create-server.ts';

// The workers of a reference server started with SPILLWAY_ROLE=all, on a thread of their own: the
// rounds never hold up the HTTP thread's event loop. The HTTP thread posts 'wake' when it stored
// new work, `{ handOver: ids }` when it stored messages leased to this thread's worker (`workerId`),
// and 'stop' on shutdown; this thread answers 'ready' and 'stopped'.

/** What the HTTP thread gives the workers' thread. */
export interface WorkerThreadData {
  config: ServerConfig;
  /** The worker id the HTTP thread hands accepted messages over to. */
  workerId: string;
}

const port = parentPort;
if (!port) throw new Error('worker-thread.ts runs as a worker thread');
const { config, workerId } = workerData as WorkerThreadData;
const server = await createServer(
  { ...config, SPILLWAY_ROLE: 'worker', SPILLWAY_WORKER_THREAD: false },
  // The HTTP thread started the checkpoint thread of a SQLite file with this one.
  { bootstrap: false, designerDir: false, checkpointsElsewhere: true, workerId },
);
await server.listen();
port.on('message', (message: unknown) => {
  if (message === 'wake') server.engine.wake();
  if (typeof message === 'object' && message !== null && 'handOver' in message) server.engine.handOver(message.handOver as number[]);
  if (message === 'stop') {
    void server.close().then(
      () => port.postMessage('stopped'),
      (error: unknown) => {
        server.logger.error({ err: error }, 'worker thread stop failed');
        port.postMessage('stopped');
      },
    );
  }
});
port.postMessage('ready');
