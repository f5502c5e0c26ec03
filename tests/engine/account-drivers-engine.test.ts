import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, createFakeClock } from '@spillway/core';
import type { AccountChannels, ChannelDriver, ChannelId, Engine, FakeClock, PendingAttempt, Storage } from '@spillway/core';
import { createSimulator } from '@spillway/channels';
import { createNodeHasher } from '@spillway/http';
import { createSqliteStorage } from '@spillway/sqlite';
import { testStorage } from '../support/engine-fixture.ts';

// An account with its own SMS driver (its own SMPP bind, say) sends its SMS through it; every other
// account, and the account's other channels, go through the server-wide drivers.

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const T0 = Date.UTC(2026, 10, 23, 12);
const hasher = createNodeHasher({ N: 2 ** 12 });

/** A driver of an account: a simulator under its own name, recording what the engine asked of it. */
function ownDriver(name: string, channels: ChannelId[] = ['sms']) {
  const sim = createSimulator({ latencyMs: 100, channels });
  const calls = { start: 0, close: 0, recovered: [] as PendingAttempt[] };
  const driver: ChannelDriver & { sent: typeof sim.sent } = {
    ...sim,
    name,
    sent: sim.sent,
    async start(ctx) {
      calls.start++;
      await sim.start?.(ctx);
    },
    async recover(attempts, ctx) {
      calls.recovered.push(...attempts);
      await sim.recover?.(attempts, ctx);
    },
    async close() {
      calls.close++;
      await sim.close?.();
    },
  };
  return { driver, calls };
}

/** `forAccount` as a server does it: asynchronous (a lookup), remembered per account. */
function accountChannels(own: Map<number, ChannelDriver[]>): AccountChannels & { asked: number[] } {
  const asked: number[] = [];
  return {
    asked,
    drivers: [...own.values()].flat(),
    async forAccount(accountId) {
      asked.push(accountId);
      await Promise.resolve();
      return own.get(accountId);
    },
  };
}

async function twoAccounts(engine: Engine) {
  const shop = await engine.accounts.create({ login: 'shop', password: 'correct horse', balance: 100 });
  const acme = await engine.accounts.create({ login: 'acme', password: 'battery staple', balance: 100 });
  for (const a of [shop, acme]) await engine.accounts.approveAlphaName(a.id, 'Shop');
  return { shop, acme };
}

async function settle(engine: Engine, clock: FakeClock, ms = 2_000): Promise<void> {
  for (let t = 0; t <= ms; t += 250) {
    await engine.drain();
    await clock.advance(250);
  }
  await engine.drain();
}

describe("an account's own drivers", () => {
  it("send that account's attempts on their channel, everything else through the server-wide drivers", async () => {
    const storage = await testStorage();
    cleanups.push(() => storage.close());
    const clock = createFakeClock(T0);
    const serverWide = createSimulator({ latencyMs: 100 });
    const acmeSms = ownDriver('acme-smsc');
    const own = new Map<number, ChannelDriver[]>();
    const channels = accountChannels(own);
    const engine = createEngine({ storage, channels: [serverWide], accountChannels: channels, hasher, clock });
    const { shop, acme } = await twoAccounts(engine);
    own.set(acme.id, [acmeSms.driver]);

    const sms = (to: string) => ({ from: 'Shop', to, type: 'sms' as const, text: 'Your code: 1234' });
    const shopIds = (await engine.messages.send(shop.id, { messages: [sms('4915100000001'), sms('4915100000002')] })).messages.map(
      (m) => m.messageId,
    );
    const acmeIds = (
      await engine.messages.send(acme.id, {
        messages: [
          sms('4915100000003'),
          // Its own driver fails the attempt: the fallback on another channel is the server's.
          { ...sms('99900000002'), fallbacks: [{ from: 'Shop', to: '4915100000004', type: 'rcs' as const, text: 'Your code: 1234' }] },
        ],
      })
    ).messages.map((m) => m.messageId);
    await settle(engine, clock);

    const shopRecords = await Promise.all(shopIds.map((id) => engine.messages.status(shop.id, id)));
    const acmeRecords = await Promise.all(acmeIds.map((id) => engine.messages.status(acme.id, id)));
    expect(shopRecords.map((r) => r.deliverystatus)).toEqual(['delivered', 'delivered']);
    expect(acmeRecords.map((r) => r.deliverystatus)).toEqual(['delivered', 'delivered']);
    for (const r of shopRecords) expect(new Set(r.extendedStatuses.map((s) => s.driver))).toEqual(new Set(['simulator']));
    expect(acmeRecords[0]!.extendedStatuses.map((s) => [s.status, s.driver])).toEqual([
      ['Sent', 'acme-smsc'],
      ['Delivered', 'acme-smsc'],
    ]);
    expect(acmeRecords[1]!.extendedStatuses.map((s) => [s.attempt, s.status, s.driver])).toEqual([
      [0, 'Sent', 'acme-smsc'],
      [0, 'Failed', 'acme-smsc'],
      [1, 'Sent', 'simulator'],
      [1, 'Delivered', 'simulator'],
    ]);
    // In no particular order: a round hands its sends over together.
    expect(acmeSms.driver.sent.map((a) => a.messageId).sort()).toEqual([...acmeIds].sort());
    expect(serverWide.sent.map((a) => [a.messageId, a.channel]).sort()).toEqual(
      [
        [shopIds[0], 'sms'],
        [shopIds[1], 'sms'],
        [acmeIds[1], 'rcs'],
      ].sort(),
    );
    // Every attempt asked for its account's drivers; the shop has none.
    expect(new Set(channels.asked)).toEqual(new Set([shop.id, acme.id]));
  });

  it('are started and closed with the engine', async () => {
    const storage = await testStorage();
    cleanups.push(() => storage.close());
    const acmeSms = ownDriver('acme-smsc');
    const engine = createEngine({
      storage,
      channels: [createSimulator({ latencyMs: 100 })],
      accountChannels: accountChannels(new Map([[1, [acmeSms.driver]]])),
      hasher,
      clock: createFakeClock(T0),
    });
    engine.start();
    // Up to 10 s of wall time: the first round's recovery reads come first (round trips on PostgreSQL).
    for (let i = 0; i < 2000 && acmeSms.calls.start === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    // Started before anything was sent: a bind brings the receipts the provider held meanwhile.
    expect(acmeSms.calls.start).toBe(1);
    expect(acmeSms.driver.sent).toEqual([]);
    await engine.stop(0);
    expect(acmeSms.calls.close).toBe(1);
  });

  it('recover the attempts they carried when another worker adopts them after a crash', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spillway-account-drivers-'));
    const opened: Storage[] = [];
    cleanups.push(async () => {
      for (const s of opened) await s.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const open = () => {
      const s = createSqliteStorage({ filename: join(dir, 'spillway.db') });
      opened.push(s);
      return s;
    };
    const engineWith = async (clock: FakeClock, acmeId: number | null) => {
      const storage = open();
      await storage.migrate();
      const serverWide = createSimulator({ latencyMs: 100 });
      const acmeSms = ownDriver('acme-smsc');
      const own = new Map<number, ChannelDriver[]>(acmeId === null ? [] : [[acmeId, [acmeSms.driver]]]);
      const engine = createEngine({
        storage,
        channels: [serverWide],
        accountChannels: accountChannels(own),
        hasher,
        clock,
        onError: () => {},
      });
      return { engine, serverWide, acmeSms, own };
    };

    const clockA = createFakeClock(T0);
    const a = await engineWith(clockA, null);
    const { shop, acme } = await twoAccounts(a.engine);
    a.own.set(acme.id, [a.acmeSms.driver]);
    const sms = { from: 'Shop', to: '4915100000009', type: 'sms' as const, text: 'hi' };
    const acmeId = (await a.engine.messages.send(acme.id, { messages: [sms] })).messages[0]!.messageId;
    const shopId = (await a.engine.messages.send(shop.id, { messages: [sms] })).messages[0]!.messageId;
    // Both accepted and committed; the process dies before the providers' receipts arrive.
    await a.engine.drain();
    expect(a.acmeSms.driver.sent.map((x) => x.messageId)).toEqual([acmeId]);
    expect((await a.engine.messages.status(acme.id, acmeId)).deliverystatus).toBe('processing');

    const clockB = createFakeClock(clockA.now() + 10_000);
    const b = await engineWith(clockB, acme.id);
    await settle(b.engine, clockB, 4_000);
    // Its own driver was asked to recover its attempt (the server-wide one took the shop's).
    expect(b.acmeSms.calls.recovered.map((p) => p.messageId)).toEqual([acmeId]);
    const acmeRecord = await b.engine.messages.status(acme.id, acmeId);
    const shopRecord = await b.engine.messages.status(shop.id, shopId);
    expect(acmeRecord.deliverystatus).toBe('delivered');
    expect(acmeRecord.extendedStatuses.map((s) => s.driver)).toEqual(['acme-smsc', 'acme-smsc']);
    expect(shopRecord.deliverystatus).toBe('delivered');
    expect(shopRecord.extendedStatuses.map((s) => s.driver)).toEqual(['simulator', 'simulator']);
  });
});
