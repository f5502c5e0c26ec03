import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import type * as Threads from '../../apps/server/src/threads.ts';
import { startServer, until } from '../support/server-fixture.ts';
import { capturedLog } from '../support/server-log.ts';

// SPILLWAY_HTTP_THREADS=2 on a machine where the extra HTTP thread cannot start (here every
// `http-thread` fails as it starts; the workers' thread starts as usual): the main thread serves
// alone, saying so in the log, and the whole API still answers on the port.

vi.mock('../../apps/server/src/threads.ts', async (importOriginal) => {
  const real = await importOriginal<typeof Threads>();
  return {
    ...real,
    startThread: (name: string, data: unknown) =>
      name === 'http-thread' ? Promise.reject(new Error('http-thread said no')) : real.startThread(name, data),
  };
});

const dir = mkdtempSync(join(tmpdir(), 'spillway-http-threads-fallback-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('serves from the main thread alone when the extra HTTP threads cannot start, and logs why', async () => {
  const { logger, lines } = capturedLog();
  const f = await startServer({ SPILLWAY_DB: join(dir, 'fallback.db'), SPILLWAY_HTTP_THREADS: '2' }, { logger });
  try {
    const failed = lines.find((l) => l.msg === 'the extra HTTP threads did not start: serving from one thread');
    expect(failed?.['err']).toMatchObject({ message: 'http-thread said no' });
    expect(lines.find((l) => l.msg === 'spillway is listening')?.httpThreads).toBe(1);

    const sent = await f.call('/bat/messagelist', {
      json: { messages: [{ from: 'Acme', to: '491510000001', text: 'Hello', type: 'sms' }] },
    });
    expect(sent.status).toBe(200);
    const { messages } = (await sent.json()) as { messages: Array<{ messageId: number }> };
    const status = await until(
      async () => (await (await f.call(`/bat/message/${messages[0]!.messageId}`)).json()) as { deliverystatus: string },
      (s) => s.deliverystatus === 'delivered',
    );
    expect(status.deliverystatus).toBe('delivered');
    // A bad input is still answered in JSON by the one thread.
    const bad = await f.call('/bat/messagelist', { json: { messages: 'none' } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error?: unknown }).error).toBeDefined();
  } finally {
    await f.close();
  }
});
