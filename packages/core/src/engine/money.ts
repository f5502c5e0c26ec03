/** Micro-units per currency unit: amounts are stored as integers to keep sums exact. */
export const MICROS = 1_000_000;

/** Currency units (as the API shows them) to micro-units. */
export function toMicros(amount: number): number {
  return Math.round(amount * MICROS);
}

/** Micro-units to currency units. */
export function fromMicros(micros: number): number {
  return micros / MICROS;
}
