/**
 * The engine's workers on a thread of their own for `bench/engine.ts e2e`, over the same SQLite
 * file as the ingesting thread (as the reference server runs them). 'wake' and 'stop' from the
 * parent; answers 'ready' and 'stopped'.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createEngine } from '@spillway/core';
import { createSimulator } from '@spillway/channels';
import { createNodeHasher } from '@spillway/http';
import { createSqliteStorage } from '@spillway/sqlite';

const port = parentPort!;
const storage = createSqliteStorage({ filename: (workerData as { filename: string }).filename });
const engine = createEngine({ storage, channels: [createSimulator({ latencyMs: 0 })], hasher: createNodeHasher(), batchSize: 1000 });
engine.start();
port.on('message', (message: unknown) => {
  if (message === 'wake') engine.wake();
  if (message === 'stop') {
    void engine
      .stop()
      .then(() => storage.close())
      .then(() => port.postMessage('stopped'));
  }
});
port.postMessage('ready');
