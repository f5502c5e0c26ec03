import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeClock } from '@spillway/core';
import { startServer, until } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';
import { capturedLog, INFO, WARN } from '../support/server-log.ts';
import { testDatabase } from '../support/test-database.ts';

// An API process (`--role api`) accepts sends whether or not a worker runs on its database. With
// none, every send was answered 200 and `/health` ok, and nothing was sent, nor said. It now
// counts the live workers and the backlog every heartbeat period (on the engine's clock, here a
// fake one): `/health` answers `workers`, `/metrics` the gauges, the log says when none is left.
// The whole with real processes: tests/server/no-live-worker.test.ts.

const clock = createFakeClock(Date.UTC(2030, 0, 1, 9));
const database = testDatabase('live_workers');
const log = capturedLog();
let f: RunningFixture;
beforeAll(async () => {
  f = await startServer({ ...database.env, SPILLWAY_ROLE: 'api' }, { clock, logger: log.logger, designerDir: false });
});
afterAll(async () => {
  await f.close();
  await database.drop();
});

/** `/health`, and the gauges without labels on `/metrics`. */
async function observed(): Promise<{ health: unknown; live: number; backlog: number }> {
  const text = await (await f.call('/metrics', { auth: 'none' })).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
  const health: unknown = await (await f.call('/health', { auth: 'none' })).json();
  return { health, live: value('spillway_workers_live'), backlog: value('spillway_backlog_age_seconds') };
}
/** The lines of the log about live workers, as level and message. */
const said = () =>
  log.lines.filter((l) => /live worker|worker is live/.test(l.msg)).map((l) => [l.level, l.msg.slice(0, l.msg.indexOf(':'))]);
/** What is observed once the counts of the periods passed are in (on PostgreSQL they end after the clock moved). */
const settled = (expected: Awaited<ReturnType<typeof observed>>) =>
  until(observed, (now) => JSON.stringify(now) === JSON.stringify(expected));
const saidSettled = (lines: number) =>
  until(
    async () => said(),
    (now) => now.length === lines,
  );

const none = { status: 'ok', workers: 0 };

describe(`an API process with no worker on its database (${database.label})`, () => {
  it('says so on /health, on /metrics and in the log, and says when a worker is back', async () => {
    expect(await observed()).toEqual({ health: none, live: 0, backlog: 0 });
    expect(said()).toEqual([]);

    // Accepted all the same: what is accepted waits for a worker, durably.
    const sent = await f.call('/bat/messagelist', { json: { messages: [{ from: 'Acme', to: '99900000001', type: 'sms', text: 'hi' }] } });
    expect(sent.status).toBe(200);

    // Within the stale time of its start, none is no news yet (a worker started beside it comes).
    await clock.advance(4_000);
    expect(await settled({ health: none, live: 0, backlog: 4 })).toEqual({ health: none, live: 0, backlog: 4 });
    expect(said()).toEqual([]);
    await clock.advance(2_000);
    expect(await settled({ health: none, live: 0, backlog: 6 })).toEqual({ health: none, live: 0, backlog: 6 });
    expect(await saidSettled(1)).toEqual([[WARN, 'no live worker on the database']]);

    // A worker elsewhere heartbeats: counted within a period.
    await f.server.storage.heartbeat('worker-elsewhere', clock.now());
    await clock.advance(1_000);
    const one = { health: { status: 'ok', workers: 1 }, live: 1, backlog: 7 };
    expect(await settled(one)).toEqual(one);
    expect(await saidSettled(2)).toEqual([
      [WARN, 'no live worker on the database'],
      [INFO, 'a worker is live on the database again'],
    ]);

    // Silent for the stale time: dead, and said once.
    await clock.advance(6_000);
    expect(await settled({ health: none, live: 0, backlog: 13 })).toEqual({ health: none, live: 0, backlog: 13 });
    await clock.advance(3_000);
    expect(await settled({ health: none, live: 0, backlog: 16 })).toEqual({ health: none, live: 0, backlog: 16 });
    expect(said()).toEqual([
      [WARN, 'no live worker on the database'],
      [INFO, 'a worker is live on the database again'],
      [WARN, 'no live worker on the database'],
    ]);
  });
});
