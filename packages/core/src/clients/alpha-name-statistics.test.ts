import { describe, expect, it } from 'vitest';
import type { StepActivity } from '../types/client.ts';
import { alphaNameStatistics } from './alpha-name-statistics.ts';

const attempt = (from: string, statuses: string[], overrides: Partial<StepActivity> = {}): StepActivity => ({
  messageId: 1,
  step: 0,
  channel: 'sms',
  type: 'sms',
  from,
  to: '99900000000',
  partsCount: 2,
  cost: 100,
  createdAt: 0,
  statuses,
  botName: null,
  ...overrides,
});

describe('alphaNameStatistics', () => {
  it('counts sent, delivered, undeliverable, parts and cost of SMS attempts per name', () => {
    const stats = alphaNameStatistics([
      attempt('Shop', ['Sent', 'Delivered']),
      attempt('Shop', ['Sent', 'Failed']),
      attempt('Shop', ['Sent', 'Expired'], { partsCount: 1, cost: 50 }),
      attempt('Shop', ['Sent']),
      attempt('Shop', []),
      attempt('Shop', ['Skipped']),
      attempt('Shop', ['Sent', 'Delivered'], { channel: 'chatapp' }),
      attempt('Acme', ['Sent', 'Read', 'Delivered']),
    ]);
    expect(stats).toEqual([
      { alphaName: 'Acme', sent: 1, delivered: 1, undeliverable: 0, parts: 2, cost: 100 },
      { alphaName: 'Shop', sent: 4, delivered: 1, undeliverable: 2, parts: 7, cost: 350 },
    ]);
  });

  it('lists names asked for even without traffic', () => {
    expect(alphaNameStatistics([], ['Quiet'])).toEqual([
      { alphaName: 'Quiet', sent: 0, delivered: 0, undeliverable: 0, parts: 0, cost: 0 },
    ]);
  });
});
