import { afterEach, describe, expect, it } from 'vitest';
import { hasClientStorage } from '@spillway/core/storage';
import { engineFixture } from '../support/engine-fixture.ts';
import { bots, cascade, rejection } from '../support/cascade-helpers.ts';

// Per-phone data (`POST /api/external-data/user-bonuses`) fills `%member%` in the texts of
// messaging API messages (at acceptance, priced on the filled text) and of cascade steps (at send).
// A placeholder the recipient's data cannot fill is refused at acceptance, at the text's path: it
// reached the recipient as written (`Hello %name%`).

let f: Awaited<ReturnType<typeof engineFixture>>;
afterEach(() => f?.close());

async function putBonus(phoneNumber: string, data: Record<string, unknown>) {
  if (!hasClientStorage(f.storage)) throw new Error('the test storage keeps client records');
  await f.storage.putPhoneData(f.account.id, [{ phoneNumber, data }], f.clock.now());
}

describe('per-phone variables', () => {
  it('fill messaging texts at acceptance, per recipient', async () => {
    f = await engineFixture();
    await putBonus('99900000000', { bonus: 120, name: 'Ann' });
    const long = 'x'.repeat(160);
    await putBonus('99900000100', { bonus: long });
    const res = await f.engine.messages.send(f.account.id, {
      messages: [
        { from: 'Shop', to: '99900000000', type: 'sms', text: '%name%, you have %bonus% points: caf%C3%A9, 50% off' },
        { from: 'Shop', to: '99900000100', type: 'sms', text: 'Bonus: %bonus%' },
      ],
    });
    expect(res.messages.map((m) => m.text)).toEqual(['Ann, you have 120 points: caf%C3%A9, 50% off', `Bonus: ${long}`]);
    // The long value makes two SMS parts, and the price follows.
    expect(res.messages.map((m) => m.partsCount)).toEqual([1, 2]);
    await f.advance(1_000);
    expect(f.simulator.sent.map((a) => a.text)).toEqual(res.messages.map((m) => m.text));
    const second = await f.engine.messages.status(f.account.id, res.messages[1]!.messageId);
    const first = await f.engine.messages.status(f.account.id, res.messages[0]!.messageId);
    expect(second.cost).toBeCloseTo(first.cost * 2, 6);
  });

  it('refuse a messaging text naming a placeholder its recipient’s data lacks, at its path, and accept nothing', async () => {
    f = await engineFixture();
    await putBonus('99900000000', { bonus: 120, tier: { level: 'gold' } });
    const error = await rejection(
      f.engine.messages.send(f.account.id, {
        messages: [
          { from: 'Shop', to: '99900000000', type: 'sms', text: 'Hi %name%, %bonus% points (%tier%)' },
          {
            from: 'Shop',
            to: '99900000200',
            type: 'chatapp_service',
            text: 'Bonus: %bonus%',
            fallbacks: [{ from: 'Shop', to: '99900000200', type: 'sms', text: 'Hello %name%' }],
          },
        ],
      }),
    );
    expect(error.status).toBe(400);
    expect(error.details).toEqual([
      {
        path: 'messages[0].text',
        message:
          'unknown placeholders %name%, %tier%: the per-phone data of 99900000000 has no such string, number or boolean member ' +
          '(upload it with POST /api/external-data/user-bonuses first)',
      },
      {
        path: 'messages[1].text',
        message:
          'unknown placeholder %bonus%: 99900000200 has no per-phone data (upload it with POST /api/external-data/user-bonuses first)',
      },
      {
        path: 'messages[1].fallbacks[0].text',
        message:
          'unknown placeholder %name%: 99900000200 has no per-phone data (upload it with POST /api/external-data/user-bonuses first)',
      },
    ]);
    await f.advance(1_000);
    expect(f.simulator.sent).toEqual([]);
  });

  it('fill a scheduled message’s changed text, and refuse a change naming an unknown placeholder', async () => {
    f = await engineFixture();
    await putBonus('99900000000', { bonus: 7 });
    const scheduledAt = new Date(f.clock.now() + 60_000).toISOString();
    const res = await f.engine.messages.send(f.account.id, {
      messages: [{ from: 'Shop', to: '99900000000', type: 'sms', text: 'Hi', scheduledAt }],
    });
    const id = res.messages[0]!.messageId;
    const error = await rejection(f.engine.messages.update(f.account.id, id, { text: 'Hi %name%' }));
    expect(error.details).toEqual([{ path: 'text', message: expect.stringContaining('unknown placeholder %name%') }]);
    await f.engine.messages.update(f.account.id, id, { text: 'You have %bonus% points' });
    await f.advance(61_000);
    expect(f.simulator.sent.map((a) => a.text)).toEqual(['You have 7 points']);
  });

  it('fill cascade step texts when the step is sent', async () => {
    f = await engineFixture();
    await putBonus('99900000000', { bonus: 7 });
    await f.engine.cascades.send(f.account.id, [cascade('99900000000', { text: 'You have %bonus% points' })], bots);
    await f.advance(1_000);
    expect(f.simulator.sent[0]?.text).toBe('You have 7 points');
  });

  it('refuse a cascade or broadcast text naming a placeholder the recipient’s data lacks, also one a variable brings', async () => {
    f = await engineFixture();
    await putBonus('99900000000', { bonus: 7 });
    const error = await rejection(
      f.engine.cascades.send(
        f.account.id,
        [
          cascade('99900000000', { text: 'You have %bonus% points, %name%' }),
          cascade('99900000000', { text: '%name=greet%', variables: [{ id: 'greet', value: 'Hello %first%' }] }),
        ],
        bots,
      ),
    );
    expect(error.status).toBe(400);
    expect(error.details).toEqual([
      { path: '[0].text', message: expect.stringMatching(/^unknown placeholder %name%: the per-phone data of 99900000000 has no/) },
      { path: '[1].text', message: expect.stringMatching(/^unknown placeholder %first%: /) },
    ]);
    const broadcast = await rejection(
      f.engine.cascades.broadcast(f.account.id, { fromName: 'Shop', text: 'Bonus: %bonus%', recipients: ['99900000000', '99900000300'] }),
    );
    expect(broadcast.details).toEqual([
      {
        path: 'recipients[1].toPhone',
        message:
          'unknown placeholder %bonus% in text: 99900000300 has no per-phone data (upload it with POST /api/external-data/user-bonuses first)',
      },
    ]);
    await f.advance(1_000);
    expect(f.simulator.sent).toEqual([]);
  });
});
