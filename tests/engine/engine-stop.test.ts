import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '@spillway/core';
import type { ChannelDriver, Storage } from '@spillway/core';
import { createNodeHasher } from '@spillway/http';
import { testStorage } from '../support/engine-fixture.ts';

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
