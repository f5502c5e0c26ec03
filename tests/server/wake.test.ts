import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { wakeAtMostEveryMs } from '../../apps/server/src/wake.ts';

describe('waking the workers thread', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] }));
  afterEach(() => vi.useRealTimers());

  it('posts at once, then at most once per interval, and never drops a wake-up asked for in between', () => {
    const post = vi.fn();
    const wake = wakeAtMostEveryMs(1, post);
    wake();
    expect(post).toHaveBeenCalledTimes(1);
    wake();
    wake();
    expect(post).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(post).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(5);
    expect(post).toHaveBeenCalledTimes(2);
    // Long after the last post: at once again.
    wake();
    expect(post).toHaveBeenCalledTimes(3);
  });
});
