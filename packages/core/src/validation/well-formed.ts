/** A UTF-16 surrogate with no partner: with the `u` flag a pair is one code point, so only lone ones match. */
const LONE_SURROGATE = /\p{Surrogate}/gu;

/**
 * `text` with U+FFFD in place of every lone UTF-16 surrogate, as `String.prototype.toWellFormed`
 * (ES2024) does. A lone surrogate cannot be written as UTF-8: PostgreSQL's driver stores U+FFFD for
 * it, and SQLite keeps the three bytes of its WTF-8 form, read back as three U+FFFD. Text made
 * well-formed first is stored the same on both, and what a route answers is what was stored.
 */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD');
}
