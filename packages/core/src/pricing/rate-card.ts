import * as z from 'zod';
import { SpillwayError } from '../errors.ts';
import { MESSAGE_TYPES } from '../types/channel.ts';

/**
 * Prices in micro-units of the card's currency. `types` prices one part of a message type (SMS
 * per segment, other channels per message); `countries` overrides by ISO 3166 alpha-2 code.
 */
export interface RateCard {
  currency: string;
  types: Record<string, number>;
  countries?: Record<string, Record<string, number>>;
}

/**
 * The built-in prices, micro-units of EUR per part (SMS) or per message (other channels).
 * @example priceAttempt(defaultRateCard, { type: 'sms', to: '4915112345678', partsCount: 2 }) // { rate: 50_000, cost: 100_000 }
 */
export const defaultRateCard: RateCard = {
  currency: 'EUR',
  types: {
    sms: 50_000,
    chatapp_service: 30_000,
    chatapp_trans: 30_000,
    chatapp_promo: 35_000,
    chatapp_carousel: 35_000,
    chatapp_survey: 30_000,
    chatapp_otp: 25_000,
    chatapp_session: 20_000,
    flashcall_callback: 20_000,
    flashcall: 20_000,
    rcs: 40_000,
    // Cascade steps on the client's own bots: the platform fee of a bot message.
    messenger: 10_000,
    chatapp_bot: 10_000,
  },
};

const microUnits = z.int().nonnegative();
// Messaging API types, plus the cascade's bot steps (which have no messaging API type).
const typePrices = z.partialRecord(z.enum([...MESSAGE_TYPES, 'messenger', 'chatapp_bot']), microUnits);

/** A rate card as configured (`SPILLWAY_RATE_CARD`, JSON): prices in micro-units, countries by ISO alpha-2 code. */
export const rateCardSchema = z.strictObject({
  currency: z.string().regex(/^[A-Z]{3}$/, 'An ISO 4217 currency code such as EUR'),
  types: typePrices,
  countries: z.record(z.string().regex(/^[A-Z]{2}$/, 'An ISO 3166 alpha-2 country code such as DE'), typePrices).optional(),
});

/**
 * Validates a rate card given as parsed JSON (or as a JSON string). Types the card leaves out
 * keep the default card's price when the card's currency is the default's; otherwise they cost 0.
 * Throws a `validation_failed` SpillwayError with the bad paths.
 */
export function parseRateCard(json: unknown): RateCard {
  let value = json;
  if (typeof json === 'string') {
    try {
      value = JSON.parse(json);
    } catch {
      throw new SpillwayError('validation_failed', 'The rate card is not valid JSON', [{ path: 'rateCard', message: 'Not valid JSON' }]);
    }
  }
  const result = rateCardSchema.safeParse(value);
  if (!result.success) {
    const details = result.error.issues.map((i) => ({ path: ['rateCard', ...i.path].map(String).join('.'), message: i.message }));
    throw new SpillwayError('validation_failed', 'The rate card is invalid', details);
  }
  const card = result.data;
  const base = card.currency === defaultRateCard.currency ? defaultRateCard.types : {};
  const types: Record<string, number> = { ...base };
  for (const [type, price] of Object.entries(card.types)) if (price !== undefined) types[type] = price;
  const out: RateCard = { currency: card.currency, types };
  if (card.countries) {
    out.countries = {};
    for (const [country, prices] of Object.entries(card.countries)) {
      out.countries[country] = Object.fromEntries(Object.entries(prices).filter(([, p]) => p !== undefined)) as Record<string, number>;
    }
  }
  return out;
}
