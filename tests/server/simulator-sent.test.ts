import { afterEach, describe, expect, it } from 'vitest';
import { startServer, until, type RunningFixture } from '../support/server-fixture.ts';

let f: RunningFixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

describe("the reference server's simulator", () => {
  it('holds only the latest thousand attempts it was handed, the last one among them', async () => {
    // In memory, the workers run on this thread: `server.simulator` is the one that sends.
    f = await startServer({ SPILLWAY_SIMULATOR_LATENCY_MS: '0' });
    const messages = Array.from({ length: 1001 }, (_, i) => ({
      from: 'Acme',
      to: `4915${10_000_000 + i}`,
      text: `code ${i}`,
      type: 'sms',
    }));
    const res = await f.call('/bat/messagelist', { json: { messages } });
    expect(res.status).toBe(200);
    const ids = ((await res.json()) as { messages: Array<{ messageId: number }> }).messages.map((m) => m.messageId);
    const last = ids.at(-1)!;
    const lastSent = await until(
      async () => f!.server.simulator.sent.some((a) => a.messageId === last),
      (found) => found,
      2000,
    );
    expect(lastSent).toBe(true);
    expect(f.server.simulator.sent.length).toBeLessThanOrEqual(1000);
    expect(f.server.simulator.sent.length).toBeGreaterThan(0);
  });
});
