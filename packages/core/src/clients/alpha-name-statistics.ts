import type { StepActivity } from '../types/client.ts';

/** SMS figures of one alpha-name over a period (`GET /api/AlphaName/sms/status`). */
export interface AlphaNameStatistics {
  alphaName: string;
  /** Attempts handed to the SMS channel. */
  sent: number;
  delivered: number;
  /** Attempts that failed or expired without a delivery. */
  undeliverable: number;
  /** SMS parts of the sent attempts. */
  parts: number;
  /** Price of the sent attempts, micro-units. */
  cost: number;
}

/**
 * Folds SMS attempts into figures per alpha-name, sorted by name. An attempt counts as sent once
 * its history has `Sent`, delivered with `Delivered`, undeliverable with `Failed` or `Expired`
 * and no `Delivered`. Names without a sent attempt are left out unless listed in `names`.
 */
export function alphaNameStatistics(activity: readonly StepActivity[], names: readonly string[] = []): AlphaNameStatistics[] {
  const byName = new Map<string, AlphaNameStatistics>();
  const of = (alphaName: string) => {
    let s = byName.get(alphaName);
    if (!s) byName.set(alphaName, (s = { alphaName, sent: 0, delivered: 0, undeliverable: 0, parts: 0, cost: 0 }));
    return s;
  };
  for (const name of names) of(name);
  for (const a of activity) {
    if (a.channel !== 'sms' || !a.statuses.includes('Sent')) continue;
    const s = of(a.from);
    s.sent++;
    s.parts += a.partsCount;
    s.cost += a.cost;
    if (a.statuses.includes('Delivered')) s.delivered++;
    else if (a.statuses.includes('Failed') || a.statuses.includes('Expired')) s.undeliverable++;
  }
  return [...byName.values()].sort((x, y) => x.alphaName.localeCompare(y.alphaName));
}
