/**
 * Prices in micro-units of the card's currency. `types` prices one part of a message type (SMS
 * per segment, other channels per message); `countries` overrides by ISO 3166 alpha-2 code.
 */
export interface RateCard {
  currency: string;
  types: Record<string, number>;
  countries?: Record<string, Record<string, number>>;
}
