import { parentPort, workerData } from 'node:worker_threads';
import type { ServerConfig } from './config.ts';
import { createServer } from './create-server.ts';

// The workers of a reference server started with SPILLWAY_ROLE=all, on a thread of their own: the
// rounds never hold up the HTTP thread's event loop. The HTTP thread posts 'wake' when it stored
// new work and 'stop' on shutdown; this thread answers 'ready' and 'stopped'.

const port = parentPort;
if (!port) throw new Error('worker-thread.ts runs as a worker thread');
const config = workerData as ServerConfig;
const server = await createServer(
  { ...config, SPILLWAY_ROLE: 'worker', SPILLWAY_WORKER_THREAD: false },
  // The HTTP thread started the checkpoint thread of a SQLite file with this one.
  { bootstrap: false, designerDir: false, checkpointsElsewhere: true },
);
await server.listen();
port.on('message', (message: unknown) => {
  if (message === 'wake') server.engine.wake();
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
