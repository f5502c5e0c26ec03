import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, STOP_SETTLE_MS } from '@spillway/core';
import type { ChannelDriver, EngineStopReport, Storage } from '@spillway/core';
import { createNodeHasher } from '@spillway/http';
import { engineFixture, testStorage } from '../support/engine-fixture.ts';

let storage: Storage | undefined;
afterEach(async () => {
  await storage?.close();
  storage = undefined;
});

describe('engine.stop()', () => {
  // Regression: a send answered during stop() stayed "in flight" until a round applied its
  // result, and stop() ran no round, so it spun until the grace period ran out.
  it('returns once the sends in flight are answered and applied, not at the end of the grace period', async () => {
    storage = await testStorage();
    let handedOver!: () => void;
    const handed = new Promise<void>((resolve) => (handedOver = resolve));
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const driver: ChannelDriver = {
      name: 'held',
      channels: ['sms'],
      send: async () => {
        handedOver();
        await answered;
        return { outcome: 'accepted' };
      },
    };
    const engine = createEngine({ storage, channels: [driver], hasher: createNodeHasher({ N: 2 ** 12 }) });
    const account = await engine.accounts.create({ login: 'shop', password: 'correct horse', balance: 10 });
    await engine.accounts.approveAlphaName(account.id, 'Shop');
    const sent = await engine.messages.send(account.id, { messages: [{ from: 'Shop', to: '79991234567', type: 'sms', text: 'hi' }] });
    const id = sent.messages[0]!.messageId;
    engine.start();
    await handed;

    // An hour of grace: the test's timeout would end a stop() that waits for it.
    const stopped = engine.stop(3_600_000);
    answer();
    await stopped;
    expect((await storage.history(id)).map((h) => h.status)).toEqual(['Sent']);
  });

  // Regression: the system clock's timers do not keep the process alive (a worker must not hold up
  // an embedder's exit), so with nothing else alive the process ended while stop() waited for the
  // sends in flight: exit code 13, an unsettled top-level await, the stop never finished.
  it('finishes in a process with nothing else alive, with sends in flight', () => {
    const dir = mkdtempSync(join(tmpdir(), 'spillway-stop-'));
    try {
      const root = resolve(import.meta.dirname, '../..');
      const script = join(import.meta.dirname, 'fixtures/stop-with-nothing-else-alive.ts');
      const run = spawnSync(process.execPath, ['--conditions=@spillway/source', '--import', 'tsx', script, join(dir, 'stop.db')], {
        cwd: root,
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
      // The send in flight was answered and its result applied before the stop ended.
      expect(JSON.parse(run.stdout.trim())).toEqual({ stopped: true, history: ['Sent'] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('engine.stop(graceMs): one deadline, counted from the call', () => {
  type Fixture = Awaited<ReturnType<typeof engineFixture>>;
  let f: Fixture | undefined;
  afterEach(async () => {
    await f?.close();
    f = undefined;
  });
  /** Lets promise chains and the rounds' yields to the event loop run. */
  const settle = async () => {
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setTimeout(resolve, 0));
  };
  /** A driver that answers every send at once but the one to `held`, which it never answers. */
  const holding = (held: string): { driver: ChannelDriver; handed: Promise<void> } => {
    let handedOver!: () => void;
    const handed = new Promise<void>((resolve) => (handedOver = resolve));
    const driver: ChannelDriver = {
      name: 'holding',
      channels: ['sms'],
      send: async (attempt) => {
        if (attempt.to !== held) return { outcome: 'accepted' };
        handedOver();
        return new Promise(() => undefined);
      },
    };
    return { driver, handed };
  };
  const sms = (to: string) => ({ messages: [{ from: 'Shop', to, type: 'sms' as const, text: 'hi' }] });
  /** Moves the clock a millisecond at a time until `reached` resolves (the rounds gather work on it). */
  const until = async (reached: Promise<void>) => {
    let done = false;
    void reached.then(() => (done = true));
    for (let i = 0; i < 1_000 && !done; i++) {
      await f!.clock.advance(1);
      await settle();
    }
    expect(done).toBe(true);
  };

  // Regression: stop() first waited for the round in flight, however long its commit took (a
  // PostgreSQL lock wait), and only then began the grace period of the sends in flight: a SIGTERM
  // took the grace plus every wait before it.
  it('ends at the deadline when the round in flight never ends (its commit waits on a lock), saying so', async () => {
    const { driver } = holding('none');
    f = await engineFixture({ channels: [driver] });
    let entered!: () => void;
    const committing = new Promise<void>((resolve) => (entered = resolve));
    f.storage.commit = () => {
      entered();
      return new Promise(() => undefined);
    };
    await f.engine.messages.send(f.account.id, sms('79990000001'));
    f.engine.start();
    await until(committing);
    let stopped: EngineStopReport | undefined;
    const stopping = f.engine.stop(1_000).then((report) => (stopped = report));
    // A round that records what was done is given the settling time past the deadline, no more.
    await f.clock.advance(1_000 + STOP_SETTLE_MS - 1);
    await settle();
    expect(stopped).toBeUndefined();
    await f.clock.advance(1);
    await stopping;
    expect(stopped).toMatchObject({ roundRunning: true });
  });

  it('gives the sends in flight what is left of the grace once a slow round ended, not a grace of their own', async () => {
    const { driver, handed } = holding('79990000001');
    f = await engineFixture({ channels: [driver] });
    const { clock } = f;
    const commit = f.storage.commit.bind(f.storage);
    await f.engine.messages.send(f.account.id, sms('79990000001'));
    f.engine.start();
    await until(handed);
    // From now on a commit takes 600 ms (a lock held elsewhere): the round applying the next send's result.
    let entered!: () => void;
    const committing = new Promise<void>((resolve) => (entered = resolve));
    f.storage.commit = async (c) => {
      entered();
      await new Promise((resolve) => clock.setTimeout(() => resolve(undefined), 600));
      return commit(c);
    };
    await f.engine.messages.send(f.account.id, sms('79990000002'));
    f.engine.wake();
    await until(committing);
    let stopped: EngineStopReport | undefined;
    const stopping = f.engine.stop(1_000).then((report) => (stopped = report));
    for (let ms = 0; ms < 1_000; ms += 100) {
      await clock.advance(100);
      await settle();
    }
    await settle();
    // Before: the grace began once the round ended, at 600 ms, and the stop ended at 1,600 ms.
    expect(stopped).toEqual({ sendsInFlight: 1, unapplied: 0, roundRunning: false });
    await stopping;
  });
});
