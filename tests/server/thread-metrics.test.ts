import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer, until } from '../support/server-fixture.ts';

// With a database file the server runs its workers on a thread of their own, whose rounds write
// the message history: their metrics must still reach the HTTP thread's /metrics.

const dir = mkdtempSync(join(tmpdir(), 'spillway-thread-metrics-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('/metrics of a server whose workers run on a thread', () => {
  it("counts the workers' thread's history entries and finished messages", async () => {
    const f = await startServer({ SPILLWAY_DB: join(dir, 'metrics.db') });
    try {
      const res = await f.call('/bat/messagelist', {
        json: {
          messages: [
            { from: 'Acme', to: '99912345600', type: 'sms', text: 'delivered' },
            { from: 'Acme', to: '99912345603', type: 'sms', text: 'permanent error' },
          ],
        },
      });
      const ids = ((await res.json()) as { messages: Array<{ messageId: number }> }).messages.map((m) => m.messageId);
      for (const id of ids) {
        await until(
          async () => ((await (await f.call(`/bat/message/${id}`, { method: 'GET' })).json()) as { deliverystatus: string }).deliverystatus,
          (status) => status !== 'processing' && status !== 'scheduled',
        );
      }
      // The thread sends its counts every 200 ms.
      const metrics = await until(
        async () => (await f.call('/metrics', { auth: 'none' })).text(),
        (text) => text.includes('spillway_messages_finished_total{status="permanenterror"}'),
        100,
      );
      expect(metrics).toMatch(/spillway_message_events_total\{channel="sms",status="Delivered"\} 1\n/);
      expect(metrics).toMatch(/spillway_messages_finished_total\{status="delivered"\} 1\n/);
      expect(metrics).toMatch(/spillway_messages_finished_total\{status="permanenterror"\} 1\n/);
    } finally {
      await f.close();
    }
  }, 30_000);
});
