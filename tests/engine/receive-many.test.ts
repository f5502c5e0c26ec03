import { afterEach, describe, expect, it } from 'vitest';
import { cascade, cascadeHelpers } from '../support/cascade-helpers.ts';
import { engineFixture } from '../support/engine-fixture.ts';

// `engine.receiveMany`: a gateway's batch of receipts stored as one, or refused as one. Run on both
// storages (SPILLWAY_TEST_STORAGE=postgres in CI's PostgreSQL suite).

type Fixture = Awaited<ReturnType<typeof engineFixture>>;
let f: Fixture;
afterEach(() => f?.close());
const cascades = cascadeHelpers(() => f);

/** Two SMS the simulator accepts and never reports on (numbers ending in 04), sent and waiting for a receipt. */
async function twoSilent(): Promise<[number, number]> {
  const sms = (to: string) => ({ from: 'Shop', to, type: 'sms' as const, text: 'hi' });
  const sent = await f.engine.messages.send(f.account.id, { messages: [sms('99900000004'), sms('99900000104')] });
  await f.advance(1_000);
  return sent.messages.map((m) => m.messageId) as [number, number];
}

const statusOf = async (id: number) => (await f.engine.messages.status(f.account.id, id)).deliverystatus;

describe('engine.receiveMany', () => {
  it('applies every receipt of the batch, by message and step or by provider id', async () => {
    f = await engineFixture();
    const [a, b] = await twoSilent();
    expect([await statusOf(a), await statusOf(b)]).toEqual(['processing', 'processing']);
    await f.engine.receiveMany([
      { receipt: { messageId: a, step: 0, outcome: 'delivered' } },
      { receipt: { messageId: b, step: 0, outcome: 'failed', failure: 'permanent', error: 'blocked' } },
      // An id the driver has not recorded yet is kept aside, not refused.
      { receipt: { providerMessageId: 'not-yet-known', outcome: 'read' }, driver: 'kannel' },
    ]);
    await f.advance(0);
    expect([await statusOf(a), await statusOf(b)]).toEqual(['delivered', 'permanenterror']);
  });

  it('stores none of a batch in which one receipt names a message or a step that does not exist', async () => {
    f = await engineFixture();
    const [a, b] = await twoSilent();
    await expect(
      f.engine.receiveMany([
        { receipt: { messageId: a, step: 0, outcome: 'delivered' } },
        { receipt: { messageId: b, step: 2, outcome: 'delivered' } },
        { receipt: { messageId: 999_999, step: 0, outcome: 'delivered' } },
      ]),
    ).rejects.toMatchObject({
      code: 'validation_failed',
      details: [
        { path: '[1].step', message: `message ${b} has one step, 0` },
        { path: '[2].messageId', message: 'no message 999999' },
      ],
    });
    await f.advance(0);
    expect(await statusOf(a)).toBe('processing');

    await expect(f.engine.receiveMany([{ receipt: { providerMessageId: 'P1', outcome: 'delivered' } }])).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ path: '[0].driver' }],
    });
  });

  it('refuses a receipt for a fallback the message has not come to: it was never sent', async () => {
    f = await engineFixture();
    const sent = await f.engine.messages.send(f.account.id, {
      messages: [
        {
          from: 'Shop',
          to: '99900000004',
          type: 'sms',
          text: 'hi',
          fallbacks: [{ from: 'Shop', to: '99900000004', type: 'sms', text: 'again' }],
        },
      ],
    });
    const id = sent.messages[0]!.messageId;
    await f.advance(1_000);
    await expect(f.engine.receive({ messageId: id, step: 1, outcome: 'delivered' })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ path: 'step', message: `message ${id} has not come to step 1: it is at step 0` }],
    });
    await f.engine.receive({ messageId: id, step: 0, outcome: 'delivered' });
    await f.advance(0);
    const status = await f.engine.messages.status(f.account.id, id);
    expect(status.deliverystatus).toBe('delivered');
    // Delivered at step 0, the message never comes to its fallback.
    await expect(f.engine.receiveMany([{ receipt: { messageId: id, step: 1, outcome: 'read' } }])).rejects.toMatchObject({
      details: [{ path: '[0].step' }],
    });
  });

  it("refuses a receipt for a cascade's step it never sent, and takes a late one for a step it sent and left", async () => {
    f = await engineFixture();
    // 01: the chat channels are undeliverable, SMS delivers. Without bot keys the bot steps are skipped.
    const { messageId: guid } = await cascades.sendOne([cascade('99900000001', { id: 'c-1' })]);
    for (let i = 0; i < 10 && (await cascades.statusOf(guid)).status === 'processing'; i++) await f.advance(1_000);
    const settled = await cascades.statusOf(guid);
    expect(settled.status).toBe('delivered');
    const stepOf = (channel: string) => settled.steps.find((s) => s.channel === channel)!.step;
    const id = (await f.storage.getMessageByTrackinId(f.account.id, 'c-1'))!.id;
    // The messenger step was skipped, never sent: a receipt for it is no fact.
    await expect(f.engine.receive({ messageId: id, step: stepOf('messenger'), outcome: 'delivered' })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ path: 'step', message: `cascade message ${id} never sent step ${stepOf('messenger')}` }],
    });
    // The chat-app step was sent and left for SMS: its late report is recorded.
    await f.engine.receive({ messageId: id, step: stepOf('chatapp'), outcome: 'delivered' });
    await f.advance(0);
    expect((await cascades.statusOf(guid)).history.filter((e) => e.status === 'Delivered').map((e) => e.channel)).toEqual([
      'sms',
      'chatapp',
    ]);
  });

  it('records a receipt the provider repeats once: the message is already where that receipt took it', async () => {
    f = await engineFixture();
    const [a] = await twoSilent();
    for (let i = 0; i < 3; i++) {
      await f.engine.receive({ messageId: a, step: 0, outcome: 'delivered' });
      await f.advance(0);
    }
    const status = await f.engine.messages.status(f.account.id, a);
    expect(status.deliverystatus).toBe('delivered');
    expect(status.extendedStatuses.map((e) => e.status)).toEqual(['Sent', 'Delivered']);
  });
});
