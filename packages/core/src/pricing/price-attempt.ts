import { countriesOfCallingCode, callingCodeOf, countryOfNumber } from '../messages/phone-number.ts';
import type { RateCard } from './rate-card.ts';

/** The price of one attempt: `rate` per part and `cost` = rate x parts, micro-units. */
export interface AttemptPrice {
  rate: number;
  cost: number;
}

/**
 * Prices one attempt: the card's rate for its type (overridden by the recipient's country when
 * the card has one for it) times its parts. A type the card does not list costs 0. The simulator's
 * test numbers (`999...`) have no country and take the base rate.
 */
export function priceAttempt(card: RateCard, draft: { type: string; to: string; partsCount: number }): AttemptPrice {
  let rate = card.types[draft.type] ?? 0;
  const overrides = card.countries;
  if (overrides !== undefined) {
    const country = countryWithOverride(overrides, draft.to);
    const override = country === undefined ? undefined : overrides[country]?.[draft.type];
    if (override !== undefined) rate = override;
  }
  return { rate, cost: rate * draft.partsCount };
}

/**
 * The recipient's country when the card may override it. Parsing a number costs microseconds,
 * so it is skipped when no country sharing the calling code has an override.
 */
function countryWithOverride(overrides: Record<string, unknown>, to: string): string | undefined {
  if (to.startsWith('999')) return undefined;
  const code = callingCodeOf(to);
  if (code === undefined) return undefined;
  if (!countriesOfCallingCode(code).some((c) => overrides[c] !== undefined)) return undefined;
  return countryOfNumber(to);
}
