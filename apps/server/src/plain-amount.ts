/**
 * An amount in currency units written in plain decimal digits (`100`, `12.50`; blanks around it
 * allowed), or null for anything else: `Number` also read "" as 0, "0x10" as 16 and "1e3" as
 * 1000. The one reading of `SPILLWAY_BOOTSTRAP_BALANCE` and of the CLI's `--balance` and `--amount`.
 */
export function readPlainAmount(text: string): number | null {
  return /^\s*\d+(\.\d+)?\s*$/.test(text) ? Number(text) : null;
}
