import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../packages/channels/src/testing/free-ports.ts';
import { startTestSmsc } from '../../packages/channels/src/testing/smsc-server.ts';
import type { TestSmsc } from '../../packages/channels/src/testing/smsc-server.ts';
import { startServer, until } from '../support/server-fixture.ts';
import { INFO, WARN, capturedLog } from '../support/server-log.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

// What the drivers go through shows in the server's log and on /metrics: an SMPP bind lost and
// back, a failover's breaker opening, an incoming SMS no account owns refused.

const dir = mkdtempSync(join(tmpdir(), 'spillway-driver-health-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeConfig(config: unknown): string {
  const file = join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(config));
  return file;
}

const smpp = (port: number) => ({
  type: 'smpp',
  host: '127.0.0.1',
  port,
  systemId: 'spillway',
  password: 'secret',
  responseTimeoutMs: 300,
  reconnect: { initialMs: 20, maxMs: 50 },
});

/** The value of one series on the server's /metrics, or undefined while it has none. */
async function metric(f: RunningFixture, series: string): Promise<number | undefined> {
  const text = await (await f.call('/metrics', { auth: 'none' })).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** Kills the SMSC and starts it again on its port, refusing binds until a few were tried; answers the new one. */
async function killAndRestart(f: RunningFixture, smsc: TestSmsc, series: string): Promise<TestSmsc> {
  await smsc.close();
  expect(
    await until(
      () => metric(f, series),
      (v) => v === 0,
    ),
  ).toBe(0);
  const again = await startTestSmsc({ systemId: 'spillway', password: 'secret', port: smsc.port, refuseBinds: true });
  // The driver tries again and again meanwhile: each failed bind is not a line of its own.
  await until(
    async () => again.bindAttempts,
    (n) => n >= 3,
  );
  again.refuseBinds = false;
  expect(
    await until(
      () => metric(f, series),
      (v) => v === 1,
    ),
  ).toBe(1);
  return again;
}

describe('driver health in the log and on /metrics', () => {
  it('logs and counts an SMPP bind lost and back, a breaker opening, and a refused MO once per address', async () => {
    let smsc = await startTestSmsc({ systemId: 'spillway', password: 'secret' });
    const dead = await freePort();
    const { logger, lines } = capturedLog();
    const file = writeConfig({
      drivers: { dead: smpp(dead), smsc: smpp(smsc.port) },
      channels: { sms: { drivers: ['dead', 'smsc'], consecutiveFailures: 1 } },
    });
    const f = await startServer({ SPILLWAY_CONFIG: file }, { logger });
    try {
      // Both binds are tried at start: one comes up, the other cannot.
      expect(
        await until(
          () => metric(f, 'spillway_driver_up{driver="smsc"}'),
          (v) => v === 1,
        ),
      ).toBe(1);
      expect(
        await until(
          () => metric(f, 'spillway_driver_up{driver="dead"}'),
          (v) => v === 0,
        ),
      ).toBe(0);
      expect(await metric(f, 'spillway_breaker_state{failover="sms-failover",driver="dead"}')).toBe(0);
      expect(lines.find((l) => l.msg === 'driver link up')).toMatchObject({
        level: INFO,
        driver: 'smsc',
        reason: expect.stringContaining('bound to'),
      });
      expect(lines.find((l) => l.msg === 'driver link lost')).toMatchObject({
        level: WARN,
        driver: 'dead',
        link: `SMPP bind to 127.0.0.1:${dead}`,
        reason: expect.stringContaining('ECONNREFUSED'),
      });

      // A send: the dead provider fails it, its breaker opens, the live one takes it.
      const res = await f.call('/bat/messagelist', {
        json: { messages: [{ from: 'Acme', to: '4915112345678', type: 'sms', text: 'hi' }] },
      });
      const id = ((await res.json()) as { messages: Array<{ messageId: number }> }).messages[0]!.messageId;
      const status = await until(
        async () => (await (await f.call(`/bat/message/${id}`)).json()) as { deliverystatus: string },
        (s) => s.deliverystatus === 'delivered',
        // The dead provider's refusal, the breaker and the live bind's send and receipt: seconds
        // on a loaded CI machine (it read 'processing' after the default 200 polls once).
        800,
      );
      expect(status.deliverystatus).toBe('delivered');
      expect(await metric(f, 'spillway_breaker_state{failover="sms-failover",driver="dead"}')).toBe(2);
      expect(lines.find((l) => l.msg.startsWith('failover breaker open'))).toMatchObject({
        level: WARN,
        driver: 'sms-failover',
        provider: 'dead',
        channels: ['sms'],
        reason: expect.stringContaining('not bound to the SMSC'),
      });

      // An MO to an address no account owns: refused (the SMSC keeps it and tries again), counted
      // each time, logged once.
      const refused = 'spillway_inbound_refused_total{driver="smsc",reason="no_owner"}';
      smsc.deliverMo('4915100000129', 'Nobody', 'hello?');
      await until(
        () => metric(f, refused),
        (v) => (v ?? 0) >= 1,
      );
      smsc.deliverMo('4915100000129', 'Nobody', 'hello again?');
      expect(
        await until(
          () => metric(f, refused),
          (v) => (v ?? 0) >= 2,
        ),
      ).toBeGreaterThanOrEqual(2);
      const moLines = lines.filter((l) => l.msg.startsWith('incoming message refused'));
      expect(moLines).toEqual([
        expect.objectContaining({ level: WARN, driver: 'smsc', channel: 'sms', address: 'Nobody', reason: 'no_owner', count: 1 }),
      ]);
      // The sender's number is not logged.
      expect(JSON.stringify(moLines)).not.toContain('4915100000129');

      // The SMSC killed and started again: lost once, back once, however many binds failed between.
      smsc = await killAndRestart(f, smsc, 'spillway_driver_up{driver="smsc"}');
      const smscLines = lines.filter((l) => l['driver'] === 'smsc' && String(l.msg).startsWith('driver link'));
      expect(smscLines.map((l) => [l.msg, l.level])).toEqual([
        ['driver link up', INFO],
        ['driver link lost', WARN],
        ['driver link back', INFO],
      ]);
      expect(smscLines[2]).toMatchObject({ reason: `bound to 127.0.0.1:${smsc.port} as spillway`, downSeconds: expect.any(Number) });
    } finally {
      await f.close();
      await smsc.close();
    }
  }, 30_000);

  it("carries the workers' thread's binds and refused MOs to /metrics (a database file)", async () => {
    let smsc = await startTestSmsc({ systemId: 'spillway', password: 'secret' });
    const file = writeConfig({ drivers: { smsc: smpp(smsc.port) }, channels: { sms: ['smsc'] } });
    const f = await startServer({ SPILLWAY_CONFIG: file, SPILLWAY_DB: join(dir, 'threaded.db') });
    try {
      const up = 'spillway_driver_up{driver="smsc"}';
      expect(
        await until(
          () => metric(f, up),
          (v) => v === 1,
        ),
      ).toBe(1);
      smsc.deliverMo('4915100000129', 'Nobody', 'hello?');
      const refused = 'spillway_inbound_refused_total{driver="smsc",reason="no_owner"}';
      expect(
        await until(
          () => metric(f, refused),
          (v) => (v ?? 0) >= 1,
        ),
      ).toBeGreaterThanOrEqual(1);
      smsc = await killAndRestart(f, smsc, up);
    } finally {
      await f.close();
      await smsc.close();
    }
  }, 30_000);
});
