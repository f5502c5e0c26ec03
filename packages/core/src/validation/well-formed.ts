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

/** Whether `text` holds a lone surrogate (a pair is well-formed). */
const holdsLoneSurrogate = (text: string): boolean => /\p{Surrogate}/u.test(text);

/**
 * Makes every string value in parsed JSON `value` well-formed ({@link wellFormed}), in place, and
 * answers it (a string `value` itself is answered made well-formed). Walked with a stack of its
 * own, as a request can nest deep; a string is rewritten only when it holds a lone surrogate.
 */
export function wellFormedDeep(value: unknown): unknown {
  if (typeof value === 'string') return holdsLoneSurrogate(value) ? wellFormed(value) : value;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    const members = node as Record<string, unknown>;
    for (const key of Object.keys(members)) {
      const child = members[key];
      if (typeof child === 'string') {
        if (holdsLoneSurrogate(child)) members[key] = wellFormed(child);
      } else if (typeof child === 'object' && child !== null) stack.push(child);
    }
  }
  return value;
}
