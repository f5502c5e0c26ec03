import { describe, expect, it } from 'vitest';
import { claimedDeliveryFromRow } from './inbound-rows.ts';

describe('claimedDeliveryFromRow', () => {
  it('nests the joined message, its id taken from m_id rather than the delivery id', () => {
    const claimed = claimedDeliveryFromRow({
      id: 7,
      inbound_id: 'u-1',
      account_id: 3,
      url: 'https://example.test/hook',
      status: 'pending',
      attempts: 1,
      last_error: 'timeout',
      due_at: 50,
      created_at: 10,
      delivered_at: null,
      m_id: 'u-1',
      m_account_id: 3,
      alpha_name: 'Shop',
      phone_number: '79990000000',
      text: 'hi',
      received_at: 9,
    });
    expect(claimed).toEqual({
      id: 7,
      inboundId: 'u-1',
      accountId: 3,
      url: 'https://example.test/hook',
      status: 'pending',
      attempts: 1,
      lastError: 'timeout',
      dueAt: 50,
      createdAt: 10,
      deliveredAt: null,
      inbound: { idUuid: 'u-1', accountId: 3, alphaName: 'Shop', phoneNumber: '79990000000', text: 'hi', receivedAt: 9 },
    });
  });
});
