import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer, until } from '../support/server-fixture.ts';

// With a database file the HTTP thread stores the messages it accepts already leased to the
// workers' thread and posts their ids to it (`{ handOver: ids }`). The lease lasts 60 s and no
// other worker claims a leased message: if the ids never reached the thread, the messages would
// wait out the lease. So a message delivered within the few seconds `until` waits was handed over.

const dir = mkdtempSync(join(tmpdir(), 'spillway-thread-hand-over-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a server whose workers run on a thread', () => {
  it('hands the messages it accepts to the thread, which sends them at once', async () => {
    const f = await startServer({ SPILLWAY_DB: join(dir, 'hand-over.db') });
    try {
      for (let request = 0; request < 3; request++) {
        const res = await f.call('/bat/messagelist', {
          json: { messages: [0, 1].map((i) => ({ from: 'Acme', to: `9991234${request}${i}00`, type: 'sms', text: 'hi' })) },
        });
        expect(res.status).toBe(200);
        const ids = ((await res.json()) as { messages: Array<{ messageId: number }> }).messages.map((m) => m.messageId);
        for (const id of ids) {
          const status = await until(
            async () =>
              ((await (await f.call(`/bat/message/${id}`, { method: 'GET' })).json()) as { deliverystatus: string }).deliverystatus,
            (s) => s === 'delivered',
          );
          expect(status, `message ${id}`).toBe('delivered');
        }
      }
    } finally {
      await f.close();
    }
  }, 30_000);
});
