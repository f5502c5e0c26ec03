import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../clock.ts';
import { SpillwayError } from '../errors.ts';
import type { AccountStorage } from '../ports/account-storage.ts';
import type { InboundMessage, InboundStorage, NewWebhookDelivery } from '../ports/inbound-storage.ts';
import { createInboundService } from './inbound-service.ts';

/** Just what the service uses: alpha-names and recordInbound. */
function fakeStorage(callbackUrl: string | null) {
  const recorded: Array<{ inbound: InboundMessage; delivery: NewWebhookDelivery | null }> = [];
  const storage = {
    async getAlphaName(accountId: number, name: string) {
      return accountId === 1 && name === 'Shop' ? { accountId, name, channels: ['chatapp' as const], callbackUrl } : null;
    },
    async recordInbound(inbound: InboundMessage, delivery: NewWebhookDelivery | null) {
      recorded.push({ inbound, delivery });
      return null;
    },
  } as unknown as AccountStorage & InboundStorage;
  return { storage, recorded };
}

describe('inbound service', () => {
  const clock = createFakeClock(Date.UTC(2026, 4, 1, 9));
  const newId = () => '7d444840-9dc0-11d1-b245-5ffdce74fad2';

  it('records the message with a delivery due now when the alpha-name has a callback', async () => {
    const { storage, recorded } = fakeStorage('https://example.com/hook');
    let woken = 0;
    const service = createInboundService({ storage, clock, newId, onQueued: () => woken++ });
    const receipt = await service.receive(1, { alphaName: 'Shop', phoneNumber: '+4915112345678', text: 'hi' });
    expect(receipt).toEqual({
      idUuid: newId(),
      alphaName: 'Shop',
      phoneNumber: '4915112345678',
      text: 'hi',
      dt: '2026-05-01T09:00:00.000Z',
      delivery: 'queued',
    });
    expect(recorded).toEqual([
      {
        inbound: { idUuid: newId(), accountId: 1, alphaName: 'Shop', phoneNumber: '4915112345678', text: 'hi', receivedAt: clock.now() },
        delivery: { url: 'https://example.com/hook', dueAt: clock.now() },
      },
    ]);
    expect(woken).toBe(1);
  });

  it('records without delivery when there is no callback', async () => {
    const { storage, recorded } = fakeStorage(null);
    const receipt = await createInboundService({ storage, clock }).receive(1, {
      alphaName: 'Shop',
      phoneNumber: '4915112345678',
      text: 'hi',
    });
    expect(receipt.delivery).toBe('no_callback');
    expect(receipt.idUuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(recorded[0]?.delivery).toBeNull();
  });

  it('answers 404 for an alpha-name the account does not have, and 400 with every bad path', async () => {
    const { storage, recorded } = fakeStorage(null);
    const service = createInboundService({ storage, clock });
    await expect(service.receive(2, { alphaName: 'Shop', phoneNumber: '4915112345678', text: 'hi' })).rejects.toMatchObject({
      code: 'not_found',
    });
    const error = (await service.receive(1, { alphaName: 5, text: '' }).catch((e: unknown) => e)) as SpillwayError;
    expect(error).toBeInstanceOf(SpillwayError);
    expect(error.details?.map((d) => d.path).sort()).toEqual(['alphaName', 'phoneNumber', 'text']);
    expect(recorded).toEqual([]);
  });
});
