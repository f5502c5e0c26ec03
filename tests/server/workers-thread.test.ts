import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer, until } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

// With a database file the server runs its workers on a thread of their own, with their own
// connection: the HTTP thread hands them the messages it accepts, and their rounds' metrics must
// still reach the HTTP thread's /metrics.

const dir = mkdtempSync(join(tmpdir(), 'spillway-workers-thread-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Sends `messages` and answers their ids. */
async function send(f: RunningFixture, messages: Array<{ to: string; text: string }>): Promise<number[]> {
  const res = await f.call('/bat/messagelist', { json: { messages: messages.map((m) => ({ from: 'Acme', type: 'sms', ...m })) } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { messages: Array<{ messageId: number }> }).messages.map((m) => m.messageId);
}

/** The message's status once `done` holds, or the last one read when `until` gave up. */
function statusOf(f: RunningFixture, id: number, done: (status: string) => boolean): Promise<string> {
  return until(
    async () => ((await (await f.call(`/bat/message/${id}`, { method: 'GET' })).json()) as { deliverystatus: string }).deliverystatus,
    done,
  );
}

describe('a server whose workers run on a thread', () => {
  // The HTTP thread stores the messages it accepts already leased to the workers' thread and posts
  // their ids to it (`{ handOver: ids }`). The lease lasts 60 s and no other worker claims a leased
  // message: if the ids never reached the thread, the messages would wait out the lease. So a
  // message delivered within the few seconds `until` waits was handed over.
  it('hands the messages it accepts to the thread, which sends them at once', async () => {
    const f = await startServer({ SPILLWAY_DB: join(dir, 'hand-over.db') });
    try {
      for (let request = 0; request < 3; request++) {
        const ids = await send(
          f,
          [0, 1].map((i) => ({ to: `9991234${request}${i}00`, text: 'hi' })),
        );
        for (const id of ids) expect(await statusOf(f, id, (s) => s === 'delivered'), `message ${id}`).toBe('delivered');
      }
    } finally {
      await f.close();
    }
  }, 30_000);

  it("counts the workers' thread's history entries and finished messages on /metrics", async () => {
    const f = await startServer({ SPILLWAY_DB: join(dir, 'metrics.db') });
    try {
      const ids = await send(f, [
        { to: '99912345600', text: 'delivered' },
        { to: '99912345603', text: 'permanent error' },
      ]);
      for (const id of ids) await statusOf(f, id, (status) => status !== 'processing' && status !== 'scheduled');
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
