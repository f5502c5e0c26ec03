import { countryOfNumber } from '../messages/phone-number.ts';
import type { StepActivity } from '../types/client.ts';

/** Counts and cost of the bot messages of one day, bot and country (`GET /api/Costs/bots`). */
export interface BotCostRow {
  /** UTC day, `YYYY-MM-DD`. */
  date: string;
  /** The bot: a messenger step's `messengerMessage.botName` ('' for the account's only bot, and the chat-app bot). */
  botName: string;
  channel: 'messenger' | 'chatapp_bot';
  /** ISO 3166 alpha-2 of the recipient, or `ZZ` when unknown. */
  country: string;
  count: number;
  /** Micro-units. */
  cost: number;
}

/**
 * Folds the sent attempts on the bot channels (messenger, chat-app bot) into one row per day,
 * bot, channel and country, sorted by those keys. `botName` and `country` filter when given. The
 * bot is the one the step named, not the cascade's alpha-name: one bot may carry several names'
 * messages, and the rows grouped by alpha-name told nothing of a bot's costs.
 */
export function botCosts(activity: readonly StepActivity[], filter: { botName?: string; country?: string } = {}): BotCostRow[] {
  const rows = new Map<string, BotCostRow>();
  for (const a of activity) {
    if ((a.channel !== 'messenger' && a.channel !== 'chatapp_bot') || !a.statuses.includes('Sent')) continue;
    const botName = a.botName ?? '';
    if (filter.botName && botName !== filter.botName) continue;
    const country = countryOfNumber(a.to) ?? 'ZZ';
    if (filter.country && country !== filter.country.toUpperCase()) continue;
    const date = new Date(a.createdAt).toISOString().slice(0, 10);
    const key = `${date}\0${botName}\0${a.channel}\0${country}`;
    let row = rows.get(key);
    if (!row) rows.set(key, (row = { date, botName, channel: a.channel, country, count: 0, cost: 0 }));
    row.count++;
    row.cost += a.cost;
  }
  return [...rows.values()].sort(
    (x, y) =>
      x.date.localeCompare(y.date) ||
      x.botName.localeCompare(y.botName) ||
      x.channel.localeCompare(y.channel) ||
      x.country.localeCompare(y.country),
  );
}
