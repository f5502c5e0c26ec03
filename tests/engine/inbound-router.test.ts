import { afterEach, describe, expect, it } from 'vitest';
import { engineFixture } from '../support/engine-fixture.ts';

let f: Awaited<ReturnType<typeof engineFixture>>;
afterEach(() => f?.close());

const mo = (alphaName: string, extra: Record<string, unknown> = {}) => ({
  channel: 'sms' as const,
  phoneNumber: '4915100000128',
  alphaName,
  text: 'STOP',
  ...extra,
});

describe('engine.receiveInbound: incoming messages from drivers', () => {
  it('goes to the account owning the address, preferring the one approved on the channel; records it durably', async () => {
    f = await engineFixture();
    const other = await f.engine.accounts.create({ login: 'other', password: 'correct horse' });
    // Both own "Shop"; only the fixture's account has it on SMS.
    await f.engine.accounts.approveAlphaName(other.id, 'Shop', ['chatapp']);
    await f.engine.accounts.approveAlphaName(f.account.id, 'Shop', ['sms']);
    await f.engine.receiveInbound(mo('Shop'));
    expect(await f.storage.lastInboundAt(f.account.id, 'Shop', '4915100000128')).toBe(f.clock.now());
    expect(await f.storage.lastInboundAt(other.id, 'Shop', '4915100000128')).toBeNull();

    // A driver that knows the account (a per-account bind) names it.
    await f.clock.advance(1000);
    await f.engine.receiveInbound(mo('Shop', { accountId: other.id }));
    expect(await f.storage.lastInboundAt(other.id, 'Shop', '4915100000128')).toBe(f.clock.now());
  });

  it('refuses what it cannot route: nobody owns the address, several own it alike, or a bad number', async () => {
    f = await engineFixture();
    await expect(f.engine.receiveInbound(mo('Nobody'))).rejects.toMatchObject({ code: 'not_found' });
    const other = await f.engine.accounts.create({ login: 'other', password: 'correct horse' });
    await f.engine.accounts.approveAlphaName(other.id, 'Shop');
    await expect(f.engine.receiveInbound(mo('Shop'))).rejects.toMatchObject({ code: 'conflict' });
    await expect(f.engine.receiveInbound(mo('Shop', { accountId: f.account.id, phoneNumber: 'not-a-number' }))).rejects.toMatchObject({
      code: 'validation_failed',
    });
    expect(await f.storage.lastInboundAt(f.account.id, 'Shop', '4915100000128')).toBeNull();
  });
});
