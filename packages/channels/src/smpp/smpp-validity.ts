/** The longest relative time the two-digit days of {@link relativeValidity} hold, in seconds. */
const MAX_SECONDS = 99 * 86_400 + 86_399;

/**
 * `seconds` as an SMPP 3.4 relative time (section 7.1.1, `YYMMDDhhmmss000R`): the attempt's ttl as
 * the `validity_period` of its `submit_sm`, so that the SMSC gives up on the message when the engine
 * stops waiting for its receipt. Written in days, hours, minutes and seconds (a month or a year has
 * no fixed length), at most 99 days 23:59:59.
 *
 * @example relativeValidity(90_061) // '000001010101000R': one day, one hour, one minute, one second
 */
export function relativeValidity(seconds: number): string {
  const s = Math.min(MAX_SECONDS, Math.max(1, Math.ceil(seconds)));
  const two = (n: number) => String(n).padStart(2, '0');
  const [days, hours, minutes] = [Math.floor(s / 86_400), Math.floor(s / 3_600) % 24, Math.floor(s / 60) % 60];
  return `0000${two(days)}${two(hours)}${two(minutes)}${two(s % 60)}000R`;
}
