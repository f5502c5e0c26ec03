import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChannelId, Receipt } from '@spillway/core';
// The engine's own advancer, to count the events a round applies (the memo hides them otherwise).
import { MachineAdvancer } from '../../packages/core/src/engine/advance.ts';
import { cascade, cascadeHelpers } from '../support/cascade-helpers.ts';
import { engineFixture } from '../support/engine-fixture.ts';

// A provider may send one receipt several times (webhooks are at-least-once). A receipt that
// changes nothing (the step's attempt already reported that status) is not recorded again and
// moves nothing: no retry used up, no fallback or cascade step taken, nothing charged. Run on both
// storages (SPILLWAY_TEST_STORAGE=postgres in CI's PostgreSQL suite).

type Fixture = Awaited<ReturnType<typeof engineFixture>>;
let f: Fixture;
afterEach(() => f?.close());
const cascades = cascadeHelpers(() => f);

/** A messaging API SMS the simulator accepts and never reports on (numbers ending in 04), with `fallbacks` like it. */
async function silentMessage(fallbacks = 0): Promise<number> {
  const sms = (text: string) => ({ from: 'Shop', to: '99900000004', type: 'sms' as const, text });
  const item = { ...sms('hi'), ...(fallbacks > 0 ? { fallbacks: Array.from({ length: fallbacks }, (_, i) => sms(`again ${i}`)) } : {}) };
  const sent = await f.engine.messages.send(f.account.id, { messages: [item] });
  await f.advance(1_000);
  return sent.messages[0]!.messageId;
}

/** Sends `receipt` `times` times, each applied before the next arrives. */
async function repeat(receipt: Receipt, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    await f.engine.receive(receipt);
    await f.advance(0);
  }
}

const statusOf = (id: number) => f.engine.messages.status(f.account.id, id);
const trail = async (id: number) => (await statusOf(id)).extendedStatuses.map((e) => `${e.status}:${e.attempt}`);
const balance = async () => (await f.engine.accounts.balance(f.account.id)).balance;
const sendsOf = (id: number) => f.simulator.sent.filter((a) => a.messageId === id).map((a) => a.step);

describe('repeated receipts of a messaging API message', () => {
  it('records a repeated Read of a read message once', async () => {
    f = await engineFixture();
    const id = await silentMessage();
    await repeat({ messageId: id, step: 0, outcome: 'delivered' }, 1);
    await repeat({ messageId: id, step: 0, outcome: 'read' }, 3);
    expect(await trail(id)).toEqual(['Sent:0', 'Delivered:0', 'Read:0']);
  });

  it('records a repeated failure of a failed message once', async () => {
    f = await engineFixture();
    const id = await silentMessage();
    await repeat({ messageId: id, step: 0, outcome: 'failed', failure: 'undeliverable', error: 'absent' }, 3);
    const status = await statusOf(id);
    expect(status.deliverystatus).toBe('undeliverable');
    expect(status.extendedStatuses.map((e) => `${e.status}:${e.attempt}:${e.error}`)).toEqual([
      'Sent:0:null',
      'Failed:0:undeliverable: absent',
    ]);
  });

  it('records a repeated failure of a step that handed over to its fallback once, and takes or charges no further fallback', async () => {
    f = await engineFixture();
    const id = await silentMessage(2);
    await repeat({ messageId: id, step: 0, outcome: 'failed', failure: 'undeliverable' }, 1);
    const charged = await balance();
    await repeat({ messageId: id, step: 0, outcome: 'failed', failure: 'undeliverable' }, 3);
    expect(await trail(id)).toEqual(['Sent:0', 'Failed:0', 'Sent:1']);
    expect(sendsOf(id)).toEqual([0, 1]);
    expect(await balance()).toBe(charged);
    const status = await statusOf(id);
    expect(status.deliverystatus).toBe('processing');
    expect(status.fallbacks?.map((fb) => [fb.deliverystatus, fb.cost])).toEqual([
      ['processing', expect.any(Number)],
      [null, 0],
    ]);
  });

  it('counts a repeated temporary failure as one: the retries are not used up and the fallback is not taken', async () => {
    f = await engineFixture();
    const id = await silentMessage(1);
    const charged = await balance();
    // More repeats than the retries a step has (3): counted each, they handed over to the fallback.
    await repeat({ messageId: id, step: 0, outcome: 'failed', failure: 'temporary', error: 'busy' }, 5);
    expect(await trail(id)).toEqual(['Sent:0', 'Failed:0']);
    expect(sendsOf(id)).toEqual([0]);
    // The one retry goes out when its backoff is over, on the primary, charged once.
    await f.advance(60_000);
    expect(await trail(id)).toEqual(['Sent:0', 'Failed:0', 'Sent:0']);
    expect(sendsOf(id)).toEqual([0, 0]);
    expect(await balance()).toBe(charged);
    expect((await statusOf(id)).fallbacks?.[0]?.deliverystatus).toBeNull();
  });

  it("records a fallback's Delivered after the primary's late Delivered ended the message, and not its repeat", async () => {
    f = await engineFixture();
    const id = await silentMessage(1);
    await repeat({ messageId: id, step: 0, outcome: 'failed', failure: 'undeliverable' }, 1);
    await repeat({ messageId: id, step: 0, outcome: 'delivered' }, 2);
    // The fallback was delivered too: a fact, though the message is delivered already.
    await repeat({ messageId: id, step: 1, outcome: 'delivered' }, 2);
    expect(await trail(id)).toEqual(['Sent:0', 'Failed:0', 'Sent:1', 'Delivered:0', 'Superseded:1', 'Delivered:1']);
    expect((await statusOf(id)).deliverystatus).toBe('delivered');
  });

  it('records receipts repeated within one round once', async () => {
    f = await engineFixture();
    const id = await silentMessage();
    await f.engine.receiveMany([
      { receipt: { messageId: id, step: 0, outcome: 'delivered' } },
      { receipt: { messageId: id, step: 0, outcome: 'delivered' } },
      { receipt: { messageId: id, step: 0, outcome: 'read' } },
      { receipt: { messageId: id, step: 0, outcome: 'read' } },
    ]);
    await f.advance(0);
    expect(await trail(id)).toEqual(['Sent:0', 'Delivered:0', 'Read:0']);
  });

  it('applies each event of a round once when receipts need their histories, read in one batch', async () => {
    f = await engineFixture();
    const first = await silentMessage();
    const second = await silentMessage();
    const histories = f.storage.histories.bind(f.storage);
    const read: number[][] = [];
    f.storage.histories = async (ids) => {
      read.push([...ids].sort((a, b) => a - b));
      return histories(ids);
    };
    const transitions = vi.spyOn(MachineAdvancer.prototype, 'next');
    try {
      // Each message's second receipt is one only its history tells from a repeat.
      await f.engine.receiveMany([
        { receipt: { messageId: first, step: 0, outcome: 'delivered' } },
        { receipt: { messageId: first, step: 0, outcome: 'delivered' } },
        { receipt: { messageId: first, step: 0, outcome: 'read' } },
        { receipt: { messageId: second, step: 0, outcome: 'delivered' } },
        { receipt: { messageId: second, step: 0, outcome: 'read' } },
      ]);
      await f.advance(0);
      expect(read).toEqual([[first, second].sort((a, b) => a - b)]);
      // Five receipts, five transitions: no message was stepped again from its start once its history was read.
      expect(transitions).toHaveBeenCalledTimes(5);
    } finally {
      transitions.mockRestore();
    }
    expect(await trail(first)).toEqual(['Sent:0', 'Delivered:0', 'Read:0']);
    expect(await trail(second)).toEqual(['Sent:0', 'Delivered:0', 'Read:0']);
  });

  it('applies a receipt whose round could not read the history at a later round: nothing lost', async () => {
    f = await engineFixture();
    const id = await silentMessage();
    await repeat({ messageId: id, step: 0, outcome: 'delivered' }, 1);
    const histories = f.storage.histories.bind(f.storage);
    let failures = 0;
    f.storage.histories = async (ids) => {
      if (failures++ === 0) throw new Error('database is locked');
      return histories(ids);
    };
    await f.engine.receive({ messageId: id, step: 0, outcome: 'read' });
    await f.advance(0);
    expect(failures).toBe(1);
    expect(await trail(id)).toEqual(['Sent:0', 'Delivered:0']);
    // The inbox keeps the receipt leased to the failed round until its lease runs out.
    await f.advance(60_000);
    expect(await trail(id)).toEqual(['Sent:0', 'Delivered:0', 'Read:0']);
  });
});

describe('repeated receipts of a cascade', () => {
  /** Binds a route of `steps` (id, channel) to `Shop`, each moving on to the next `on` an outcome. */
  async function bindRoute(steps: Array<[string, ChannelId]>, on: 'undeliverable' | 'not_read' = 'undeliverable') {
    const route = await f.engine.cascades.createRoute(f.account.id, {
      name: 'repeats',
      start: steps[0]![0],
      steps: steps.map(([id, channel]) => ({ id, channel })),
      edges: steps.slice(1).map(([to], i) => ({ from: steps[i]![0], to, on, ...(on === 'not_read' ? { afterSeconds: 60 } : {}) })),
    });
    await f.engine.cascades.bindRoute(f.account.id, route.id, 'Shop');
  }
  /** A cascade to a number the simulator never reports on, sent: its guid and internal id. */
  async function silentCascade() {
    const { messageId: guid } = await cascades.sendOne([cascade('99900000004')]);
    await f.advance(1_000);
    return { guid, id: (await f.storage.getMessageByGuid(guid))!.id };
  }

  it('records a repeated Read of a read cascade once', async () => {
    f = await engineFixture();
    await bindRoute([['sms', 'sms']]);
    const { guid, id } = await silentCascade();
    await repeat({ messageId: id, step: 0, outcome: 'delivered' }, 2);
    await repeat({ messageId: id, step: 0, outcome: 'read' }, 3);
    expect(await cascades.trail(guid)).toEqual(['Sent:sms', 'Delivered:sms', 'Read:sms']);
  });

  it('records a repeated failure of a step the cascade left once, and takes no further step', async () => {
    f = await engineFixture();
    await bindRoute([
      ['first', 'sms'],
      ['second', 'sms'],
      ['third', 'sms'],
    ]);
    const { guid, id } = await silentCascade();
    await repeat({ messageId: id, step: 0, outcome: 'failed', failure: 'undeliverable' }, 1);
    const charged = await cascades.balance();
    await repeat({ messageId: id, step: 0, outcome: 'failed', failure: 'undeliverable' }, 3);
    expect(await cascades.trail(guid)).toEqual(['Sent:sms', 'Failed:sms', 'Sent:sms']);
    expect(sendsOf(id)).toEqual([0, 1]);
    expect(await cascades.balance()).toBe(charged);
  });

  it('counts a repeated temporary failure as one: the retries are not used up and the route does not move on', async () => {
    f = await engineFixture();
    await bindRoute([
      ['first', 'sms'],
      ['second', 'sms'],
    ]);
    const { guid, id } = await silentCascade();
    await repeat({ messageId: id, step: 0, outcome: 'failed', failure: 'temporary' }, 5);
    expect(await cascades.trail(guid)).toEqual(['Sent:sms', 'Failed:sms']);
    await f.advance(60_000);
    expect(await cascades.trail(guid)).toEqual(['Sent:sms', 'Failed:sms', 'Sent:sms']);
    expect(sendsOf(id)).toEqual([0, 0]);
    expect((await cascades.statusOf(guid)).status).toBe('processing');
  });

  it('does not end a cascade delivered on a repeated Delivered of a step it left unread', async () => {
    f = await engineFixture();
    await bindRoute(
      [
        ['chat', 'chatapp'],
        ['sms', 'sms'],
      ],
      'not_read',
    );
    const { guid, id } = await silentCascade();
    await repeat({ messageId: id, step: 0, outcome: 'delivered' }, 1);
    await f.advance(60_000);
    expect(await cascades.trail(guid)).toEqual(['Sent:chatapp', 'Delivered:chatapp', 'Expired:chatapp', 'Sent:sms']);
    // The same Delivered again: the route moved on because it was not read, which it still is not.
    await repeat({ messageId: id, step: 0, outcome: 'delivered' }, 2);
    expect(await cascades.trail(guid)).toEqual(['Sent:chatapp', 'Delivered:chatapp', 'Expired:chatapp', 'Sent:sms']);
    expect((await cascades.statusOf(guid)).status).toBe('processing');
    // A Read of it is new: the recipient has the message after all.
    await repeat({ messageId: id, step: 0, outcome: 'read' }, 2);
    const status = await cascades.statusOf(guid);
    expect(status.status).toBe('delivered');
    expect(status.history.map((h) => `${h.status}:${h.channel}`)).toEqual([
      'Sent:chatapp',
      'Delivered:chatapp',
      'Expired:chatapp',
      'Sent:sms',
      'Read:chatapp',
      'Superseded:sms',
    ]);
  });
});
