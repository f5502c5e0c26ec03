import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, until } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

// Found by a scale-out run: a Read after its Delivered counted the message finished a second time
// (`spillway_messages_finished_total` 100 for 50 messages read).

let f: RunningFixture;
beforeAll(async () => {
  f = await startServer();
});
afterAll(() => f.close());

const finished = async (status: string): Promise<number> => {
  const text = await (await f.call('/metrics', { auth: 'none' })).text();
  return Number(new RegExp(`^spillway_messages_finished_total\\{status="${status}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
};

it('counts a message finished once, not again when its Read comes after its Delivered', async () => {
  // …05: delivered, then read, on chat channels.
  const res = await f.call('/bat/messagelist', {
    json: { messages: [1, 2, 3].map(() => ({ from: 'Acme', to: '99900000005', type: 'chatapp_service', text: 'hi' })) },
  });
  expect(res.status).toBe(200);
  const ids = ((await res.json()) as { messages: Array<{ messageId: number }> }).messages.map((m) => m.messageId);
  for (const id of ids) {
    await until(
      async () => (await (await f.call(`/bat/message/${id}`)).json()) as { extendedStatuses: Array<{ status: string }> },
      (r) => r.extendedStatuses.some((s) => s.status === 'Read'),
    );
  }
  expect(await finished('delivered')).toBe(3);
});
