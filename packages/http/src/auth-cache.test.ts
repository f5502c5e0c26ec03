import { createFakeClock } from '@spillway/core';
import type { Account } from '@spillway/core';
import { describe, expect, it } from 'vitest';
import { createAuthCache } from './auth-cache.ts';

const account = (id: number) => ({ id, login: `login-${id}` }) as Account;

describe('createAuthCache', () => {
  it('drops the least recently used entry past maxEntries, whether a key is hit again at once or later', () => {
    const cache = createAuthCache({ clock: createFakeClock(), maxEntries: 2 });
    cache.set('a', account(1), 0);
    cache.set('b', account(2), 0);
    expect(cache.get('b', 0)?.id).toBe(2); // the last key: already the most recent
    expect(cache.get('a', 0)?.id).toBe(1); // a is now the most recent
    expect(cache.get('a', 0)?.id).toBe(1);
    cache.set('c', account(3), 0); // b is the least recently used
    expect(cache.get('b', 0)).toBeUndefined();
    expect(cache.get('a', 0)?.id).toBe(1);
    expect(cache.get('c', 0)?.id).toBe(3);
  });

  it('answers nothing for an expired entry or another revision, the most recent one included', async () => {
    const clock = createFakeClock();
    const cache = createAuthCache({ clock, ttlMs: 1000 });
    cache.set('a', account(1), 0);
    expect(cache.get('a', 1)).toBeUndefined();
    expect(cache.get('a', 0)).toBeUndefined(); // dropped by the miss
    cache.set('a', account(1), 0);
    expect(cache.get('a', 0)?.id).toBe(1);
    await clock.advance(1000);
    expect(cache.get('a', 0)).toBeUndefined();
  });
});
