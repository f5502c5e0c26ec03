import { describe, expect, it } from 'vitest';
import type { StepActivity } from '../types/client.ts';
import { botCosts } from './bot-costs.ts';

const DAY1 = Date.UTC(2026, 0, 1, 10);
const DAY2 = Date.UTC(2026, 0, 2, 10);
const attempt = (overrides: Partial<StepActivity>): StepActivity => ({
  messageId: 1,
  step: 0,
  channel: 'messenger',
  type: 'messenger',
  from: 'Shop',
  botName: 'shop_bot',
  to: '447400123456',
  partsCount: 1,
  cost: 10_000,
  createdAt: DAY1,
  statuses: ['Sent', 'Delivered'],
  ...overrides,
});

describe('botCosts', () => {
  it('counts and prices sent bot attempts by day, bot, channel and country', () => {
    const rows = botCosts([
      attempt({}),
      attempt({ cost: 20_000 }),
      attempt({ to: '4915123456789' }),
      attempt({ createdAt: DAY2, channel: 'chatapp_bot' }),
      attempt({ statuses: ['Skipped'] }),
      attempt({ channel: 'sms' }),
      attempt({ to: '99900000000' }),
    ]);
    expect(rows).toEqual([
      { date: '2026-01-01', botName: 'shop_bot', channel: 'messenger', country: 'DE', count: 1, cost: 10_000 },
      { date: '2026-01-01', botName: 'shop_bot', channel: 'messenger', country: 'GB', count: 2, cost: 30_000 },
      { date: '2026-01-01', botName: 'shop_bot', channel: 'messenger', country: 'ZZ', count: 1, cost: 10_000 },
      { date: '2026-01-02', botName: 'shop_bot', channel: 'chatapp_bot', country: 'GB', count: 1, cost: 10_000 },
    ]);
    expect(botCosts([attempt({}), attempt({ botName: 'other' })], { botName: 'other', country: 'gb' })).toHaveLength(1);
    // By bot, whatever the alpha-name: the only bot is ''.
    expect(botCosts([attempt({}), attempt({ from: 'Promo' }), attempt({ botName: '' })])).toEqual([
      { date: '2026-01-01', botName: '', channel: 'messenger', country: 'GB', count: 1, cost: 10_000 },
      { date: '2026-01-01', botName: 'shop_bot', channel: 'messenger', country: 'GB', count: 2, cost: 20_000 },
    ]);
    expect(botCosts([attempt({})], { country: 'DE' })).toEqual([]);
  });
});
