import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../clock.ts';
import type { InboundMessage, NewWebhookDelivery } from '../ports/inbound-storage.ts';
import type { Storage } from '../ports/storage.ts';
import type { AlphaName } from '../types/account.ts';
import type { ChannelId } from '../types/channel.ts';
import { createInboundRouter } from './inbound-router.ts';
import { addressSpellings, isPhoneCountry } from './inbound-address.ts';
import { createInboundService } from './inbound-service.ts';

/** Just what the router uses: the alpha-name directory, alpha-names and recordInbound. */
function fakeStorage(names: Array<[accountId: number, name: string, channels: ChannelId[]]>) {
  const alphaNames: AlphaName[] = names.map(([accountId, name, channels]) => ({ accountId, name, channels, callbackUrl: null }));
  const recorded: InboundMessage[] = [];
  const storage = {
    async findAlphaNameOwners(name: string) {
      return alphaNames.filter((a) => a.name === name);
    },
    async getAlphaName(accountId: number, name: string) {
      return alphaNames.find((a) => a.accountId === accountId && a.name === name) ?? null;
    },
    async recordInbound(inbound: InboundMessage, _delivery: NewWebhookDelivery | null) {
      recorded.push(inbound);
      return null;
    },
  } as unknown as Storage;
  return { storage, recorded };
}

const clock = createFakeClock(Date.UTC(2026, 4, 1, 9));
const mo = (alphaName: string, accountId?: number) => ({
  channel: 'sms' as const,
  phoneNumber: '+4915112345678',
  alphaName,
  text: 'STOP',
  ...(accountId === undefined ? {} : { accountId }),
});

describe('inbound router: the owner of the address an MO was sent to', () => {
  it('finds a number in international format however the driver spells it (+, 00 or digits), under its stored name', async () => {
    const { storage, recorded } = fakeStorage([
      [1, '4915200000000', ['sms']],
      [2, '+4915300000000', ['sms']],
    ]);
    const receive = createInboundRouter({ storage, clock });
    for (const address of ['+4915200000000', '004915200000000', '4915200000000']) {
      expect(await receive(mo(address))).toMatchObject({ alphaName: '4915200000000', phoneNumber: '4915112345678' });
    }
    expect(await receive(mo('4915300000000'))).toMatchObject({ alphaName: '+4915300000000' });
    expect(recorded.map((r) => [r.accountId, r.alphaName])).toEqual([
      [1, '4915200000000'],
      [1, '4915200000000'],
      [1, '4915200000000'],
      [2, '+4915300000000'],
    ]);
  });

  it('does the same for a driver that names the account (a per-account bind)', async () => {
    const { storage, recorded } = fakeStorage([[3, '4915200000000', ['sms']]]);
    const receive = createInboundRouter({ storage, clock });
    expect(await receive(mo('+4915200000000', 3))).toMatchObject({ alphaName: '4915200000000' });
    expect(recorded.map((r) => r.accountId)).toEqual([3]);
  });

  it('keeps alpha-names and other addresses exact, and prefers the exact spelling of a number', async () => {
    const { storage } = fakeStorage([
      [1, 'Acme', ['sms']],
      [2, '4915200000000', ['sms']],
      [3, '+4915200000000', ['sms']],
    ]);
    const receive = createInboundRouter({ storage, clock });
    await expect(receive(mo('acme'))).rejects.toMatchObject({ code: 'not_found' });
    await expect(receive(mo('+Acme'))).rejects.toMatchObject({ code: 'not_found' });
    // Two accounts own two spellings of the number: the exact one wins, as it did before.
    expect(await receive(mo('+4915200000000'))).toMatchObject({ alphaName: '+4915200000000' });
    expect(await receive(mo('4915200000000'))).toMatchObject({ alphaName: '4915200000000' });
    // Neither is exact: which account is meant cannot be told.
    await expect(receive(mo('004915200000000'))).rejects.toMatchObject({ code: 'conflict' });
  });
});

describe('inbound router: the sender of an MO', () => {
  // Regression: an SMSC writing the sender with the international prefix 00 had its MO refused as
  // invalid (validation_failed), which the driver answered "try again later", for ever.
  it('reads a leading 00 as the international prefix before a possible number, and records the digits', async () => {
    const { storage, recorded } = fakeStorage([[1, 'Acme', ['sms']]]);
    const receive = createInboundRouter({ storage, clock });
    for (const phoneNumber of ['004915112345678', '+4915112345678', '4915112345678', '0099900000000']) {
      await receive({ ...mo('Acme'), phoneNumber });
    }
    expect(recorded.map((r) => r.phoneNumber)).toEqual(['4915112345678', '4915112345678', '4915112345678', '99900000000']);
  });

  it('refuses as invalid a sender that is no number in any spelling: 00 before an impossible one, a national number', async () => {
    const { storage, recorded } = fakeStorage([[1, 'Acme', ['sms']]]);
    const receive = createInboundRouter({ storage, clock });
    for (const phoneNumber of ['0012', '00049151', '015112345678', '00+4915112345678']) {
      await expect(receive({ ...mo('Acme'), phoneNumber }), phoneNumber).rejects.toMatchObject({
        code: 'validation_failed',
        details: [{ path: 'phoneNumber' }],
      });
    }
    expect(recorded).toEqual([]);
  });

  it("reads a sender in national format in the driver's country, and without one refuses it naming the setting", async () => {
    const { storage, recorded } = fakeStorage([[1, 'Acme', ['sms']]]);
    const receive = createInboundRouter({ storage, clock });
    const national = { ...mo('Acme'), defaultCountry: 'DE' };
    await receive({ ...national, phoneNumber: '01511234567', phoneNumberFormat: 'national' });
    await receive({ ...national, phoneNumber: '1511234567', phoneNumberFormat: 'national' });
    await receive({ ...national, phoneNumber: '01511234567' });
    await receive({ ...national, phoneNumber: '4915112345678', phoneNumberFormat: 'international' });
    await receive({ ...national, phoneNumber: '004915112345678' });
    expect(recorded.map((r) => r.phoneNumber)).toEqual(['491511234567', '491511234567', '491511234567', '4915112345678', '4915112345678']);
    // Read as international, 15112345678 would be a possible US number: refused, not misread.
    for (const phoneNumber of ['01511234567', '15112345678']) {
      await expect(receive({ ...mo('Acme'), phoneNumber, phoneNumberFormat: 'national' })).rejects.toMatchObject({
        code: 'validation_failed',
        details: [{ path: 'phoneNumber', message: expect.stringContaining("set the driver's `country`") }],
      });
    }
    await expect(receive({ ...mo('Acme'), phoneNumber: '01511234567' })).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(receive({ ...national, phoneNumber: '01', phoneNumberFormat: 'national' })).rejects.toMatchObject({
      details: [{ path: 'phoneNumber', message: "not a valid phone number of DE (the driver's `country`)" }],
    });
    // An alphanumeric sender is kept as it is, in no country: no phone number, refused as before.
    await expect(receive({ ...national, phoneNumber: '01511234567', phoneNumberFormat: 'alphanumeric' })).rejects.toMatchObject({
      details: [{ path: 'phoneNumber', message: 'not a valid phone number' }],
    });
    expect(recorded).toHaveLength(5);
  });

  it('records an empty text from a driver (a phone can send an empty SMS); the sandbox injection still needs one', async () => {
    const { storage, recorded } = fakeStorage([[1, 'Acme', ['sms']]]);
    const receive = createInboundRouter({ storage, clock });
    expect(await receive({ ...mo('Acme'), text: '' })).toMatchObject({ text: '', phoneNumber: '4915112345678' });
    expect(recorded.map((r) => r.text)).toEqual(['']);
    const sandbox = createInboundService({ storage, clock });
    await expect(sandbox.receive(1, { alphaName: 'Acme', phoneNumber: '4915112345678', text: '' })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ path: 'text' }],
    });
  });
});

describe('addressSpellings', () => {
  it.each([
    ['+4915200000000', ['+4915200000000', '4915200000000']],
    ['4915200000000', ['4915200000000', '+4915200000000']],
    ['004915200000000', ['004915200000000', '4915200000000', '+4915200000000']],
    // A short code is a number too; 00 is read as the international prefix only before a possible
    // number, and no calling code starts with 0.
    ['12345', ['12345', '+12345']],
    ['0012', ['0012']],
    ['0151123456', ['0151123456']],
    ['Acme', ['Acme']],
    ['+Acme', ['+Acme']],
    ['49 152 0000', ['49 152 0000']],
    ['', ['']],
  ])('%s is looked up as %j', (address, spellings) => {
    expect(addressSpellings(address)).toEqual(spellings);
  });
});

describe('isPhoneCountry', () => {
  it.each([
    ['DE', true],
    ['US', true],
    ['de', false],
    ['DEU', false],
    ['XX', false],
    ['', false],
  ])('%s: %s', (code, valid) => {
    expect(isPhoneCountry(code)).toBe(valid);
  });
});
