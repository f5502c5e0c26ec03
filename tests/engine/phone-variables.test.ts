import { afterEach, describe, expect, it } from 'vitest';
import { hasClientStorage } from '@spillway/core/storage';
import { engineFixture } from '../support/engine-fixture.ts';
import { bots, cascade } from '../support/cascade-helpers.ts';

// Per-phone data (`POST /api/external-data/user-bonuses`) fills `%member%` in the texts of
// messaging API messages (at acceptance, priced on the filled text) and of cascade steps (at send).

let f: Awaited<ReturnType<typeof engineFixture>>;
afterEach(() => f?.close());

async function putBonus(phoneNumber: string, data: Record<string, unknown>) {
  if (!hasClientStorage(f.storage)) throw new Error('the test storage keeps client records');
  await f.storage.putPhoneData(f.account.id, [{ phoneNumber, data }], f.clock.now());
}

describe('per-phone variables', () => {
  it('fill messaging texts at acceptance, per recipient, and leave unknown members as written', async () => {
    f = await engineFixture();
    await putBonus('99900000000', { bonus: 120, name: 'Ann' });
    const long = 'x'.repeat(160);
    await putBonus('99900000100', { bonus: long });
    const res = await f.engine.messages.send(f.account.id, {
      messages: [
        { from: 'Shop', to: '99900000000', type: 'sms', text: '%name%, you have %bonus% points (%level%)' },
        { from: 'Shop', to: '99900000100', type: 'sms', text: 'Bonus: %bonus%' },
        { from: 'Shop', to: '99900000200', type: 'sms', text: 'Bonus: %bonus%' },
      ],
    });
    expect(res.messages.map((m) => m.text)).toEqual(['Ann, you have 120 points (%level%)', `Bonus: ${long}`, 'Bonus: %bonus%']);
    // The long value makes two SMS parts, and the price follows.
    expect(res.messages.map((m) => m.partsCount)).toEqual([1, 2, 1]);
    await f.advance(1_000);
    expect(f.simulator.sent.map((a) => a.text)).toEqual(res.messages.map((m) => m.text));
    const second = await f.engine.messages.status(f.account.id, res.messages[1]!.messageId);
    const first = await f.engine.messages.status(f.account.id, res.messages[0]!.messageId);
    expect(second.cost).toBeCloseTo(first.cost * 2, 6);
  });

  it('fill cascade step texts when the step is sent', async () => {
    f = await engineFixture();
    await putBonus('99900000000', { bonus: 7 });
    await f.engine.cascades.send(f.account.id, [cascade('99900000000', { text: 'You have %bonus% points' })], bots);
    await f.advance(1_000);
    expect(f.simulator.sent[0]?.text).toBe('You have 7 points');
  });
});
