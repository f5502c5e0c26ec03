import { describe, expect, it } from 'vitest';
import { SpillwayError } from '../errors.ts';
import { priceAttempt } from './price-attempt.ts';
import { defaultRateCard, parseRateCard } from './rate-card.ts';
import type { RateCard } from './rate-card.ts';

const card: RateCard = {
  currency: 'EUR',
  types: { sms: 50_000, chatapp_promo: 30_000 },
  countries: { DE: { sms: 70_000 }, CA: { sms: 10_000 } },
};

describe('priceAttempt', () => {
  it('charges the type rate per SMS part', () => {
    expect(priceAttempt(defaultRateCard, { type: 'sms', to: '4915112345678', partsCount: 3 })).toEqual({ rate: 50_000, cost: 150_000 });
    expect(priceAttempt(defaultRateCard, { type: 'rcs', to: '4915112345678', partsCount: 1 })).toEqual({ rate: 40_000, cost: 40_000 });
  });

  it('takes the country override for the recipient country and type only', () => {
    expect(priceAttempt(card, { type: 'sms', to: '4915112345678', partsCount: 2 })).toEqual({ rate: 70_000, cost: 140_000 });
    expect(priceAttempt(card, { type: 'chatapp_promo', to: '4915112345678', partsCount: 1 })).toEqual({ rate: 30_000, cost: 30_000 });
    expect(priceAttempt(card, { type: 'sms', to: '33612345678', partsCount: 1 }).rate).toBe(50_000);
  });

  it('tells apart countries sharing a calling code', () => {
    // +1 204 is Manitoba (CA); +1 202 is Washington DC (US).
    expect(priceAttempt(card, { type: 'sms', to: '12042345678', partsCount: 1 }).rate).toBe(10_000);
    expect(priceAttempt(card, { type: 'sms', to: '12025550123', partsCount: 1 }).rate).toBe(50_000);
  });

  it('gives test numbers the base rate and unknown types nothing', () => {
    expect(priceAttempt(card, { type: 'sms', to: '999123456700', partsCount: 1 }).rate).toBe(50_000);
    expect(priceAttempt(card, { type: 'flashcall', to: '4915112345678', partsCount: 1 })).toEqual({ rate: 0, cost: 0 });
  });
});

describe('parseRateCard', () => {
  it('fills the types a EUR card leaves out from the default card', () => {
    const parsed = parseRateCard('{"currency":"EUR","types":{"sms":60000},"countries":{"DE":{"sms":80000}}}');
    expect(parsed.types['sms']).toBe(60_000);
    expect(parsed.types['rcs']).toBe(defaultRateCard.types['rcs']);
    expect(parsed.countries).toEqual({ DE: { sms: 80_000 } });
  });

  it('does not mix currencies', () => {
    expect(parseRateCard({ currency: 'USD', types: { sms: 1 } }).types).toEqual({ sms: 1 });
  });

  it('rejects bad cards with their paths', () => {
    const bad = (json: unknown) => {
      try {
        parseRateCard(json);
      } catch (error) {
        expect(error).toBeInstanceOf(SpillwayError);
        return (error as SpillwayError).details?.map((d) => d.path);
      }
      throw new Error('expected an error');
    };
    expect(bad('{nope')).toEqual(['rateCard']);
    expect(bad({ currency: 'eur', types: { sms: -1, fax: 1 }, countries: { Germany: {} } })).toEqual([
      'rateCard.currency',
      'rateCard.types.sms',
      'rateCard.types', // an unknown type: zod reports the record
      'rateCard.countries.Germany',
    ]);
  });
});
