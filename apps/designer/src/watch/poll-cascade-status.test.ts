import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CascadeStatus } from '../api/api-client.ts';
import { ApiError } from '../api/api-client.ts';
import { pollCascadeStatus } from './poll-cascade-status.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const status = (s: string) => ({ status: s }) as CascadeStatus;

describe('polling a cascade status', () => {
  it('stops at a 404 and says the cascade was not found (it polled an unknown id every second forever)', async () => {
    const cascadeStatus = vi.fn(() => Promise.reject(new ApiError(404, 'not_found', 'No such message')));
    const onError = vi.fn();
    pollCascadeStatus({ cascadeStatus }, 'nope', 1000, { onStatus: vi.fn(), onError });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(cascadeStatus).toHaveBeenCalledTimes(1);
    expect(onError).toHaveBeenCalledExactlyOnceWith("No cascade 'nope' was found: check the trackinId or message GUID", true);
  });

  it('keeps polling through other failures, and a few times after the cascade settles', async () => {
    const answers: (() => Promise<CascadeStatus>)[] = [
      () => Promise.reject(new ApiError(503, 'unavailable', 'Busy')),
      () => Promise.resolve(status('processing')),
      () => Promise.resolve(status('delivered')),
    ];
    const cascadeStatus = vi.fn(() => (answers.shift() ?? (() => Promise.resolve(status('delivered'))))());
    const onError = vi.fn();
    const onStatus = vi.fn();
    pollCascadeStatus({ cascadeStatus }, 'client-42', 1000, { onStatus, onError });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(onError).toHaveBeenCalledExactlyOnceWith('Busy', false);
    // processing, then delivered three times.
    expect(onStatus.mock.calls.map(([s]) => (s as CascadeStatus).status)).toEqual(['processing', 'delivered', 'delivered', 'delivered']);
    expect(cascadeStatus).toHaveBeenCalledTimes(5);
  });

  it('stops when told to', async () => {
    const cascadeStatus = vi.fn(() => Promise.resolve(status('processing')));
    const stop = pollCascadeStatus({ cascadeStatus }, 'client-42', 1000, { onStatus: vi.fn(), onError: vi.fn() });
    await vi.advanceTimersByTimeAsync(2_500);
    stop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(cascadeStatus).toHaveBeenCalledTimes(3);
  });
});
