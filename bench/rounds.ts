/**
 * The medians of benchmark rounds: each load runs in rounds beside its peer, so that a slow minute
 * of a shared machine falls on both sides of a ratio (`SPILLWAY_BENCH_ROUNDS`, default 3).
 */
export const ROUNDS = Math.max(1, Number(process.env['SPILLWAY_BENCH_ROUNDS'] ?? 3));

/** The item of median `key` among `items` (the lower one of an even count). */
export function medianBy<T>(items: readonly T[], key: (item: T) => number): T {
  return [...items].sort((a, b) => key(a) - key(b))[(items.length - 1) >> 1]!;
}

/** The median of the rounds' ratios, each round's after it when there are several: `0.95 (0.91, 1.02, 0.97)`. */
export function roundsRatioText(ratios: readonly number[]): string {
  const each = ratios.filter(Number.isFinite);
  if (each.length === 0) return '—';
  const median = medianBy(each, (x) => x).toFixed(2);
  return each.length === 1 ? median : `${median} (${each.map((x) => x.toFixed(2)).join(', ')})`;
}
