import { parentPort, workerData } from 'node:worker_threads';
import { createCheckpointer } from '@spillway/sqlite';
import { stopDeadlineOf } from './threads.ts';

// The checkpoints of a reference server's SQLite file, on a thread of their own (started with the
// workers' thread): the HTTP thread and the workers' thread commit without copying the log into
// the database file and syncing it themselves (their `wal_autocheckpoint` is only a backstop).
// The HTTP thread posts a stop on shutdown (`StopMessage`); this thread checkpoints once more if
// the deadline allows and answers 'stopped'.

export interface CheckpointThreadData {
  filename: string;
  intervalMs: number;
}

const port = parentPort;
if (!port) throw new Error('checkpoint-thread.ts runs as a worker thread');
const { filename, intervalMs } = workerData as CheckpointThreadData;
const checkpointer = createCheckpointer(filename);
const checkpoint = () => {
  try {
    checkpointer.checkpoint();
  } catch (error) {
    // A failed checkpoint loses nothing (the log keeps every commit); the next one tries again.
    port.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
};
const timer = setInterval(checkpoint, intervalMs);
port.on('message', (message: unknown) => {
  const deadline = stopDeadlineOf(message);
  if (deadline === undefined) return;
  clearInterval(timer);
  // The last checkpoint only if there is time for it: the log keeps every commit without it.
  if (Date.now() < deadline) checkpoint();
  checkpointer.close();
  port.postMessage('stopped');
});
port.postMessage('ready');
