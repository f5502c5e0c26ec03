import { describe, expect, it } from 'vitest';
import type { DriverHealthEvent } from '@spillway/core';
import { healthWatchers } from './health-watchers.ts';

describe('healthWatchers', () => {
  const event: DriverHealthEvent = { type: 'link', driver: 'smsc', link: 'smsc-1', up: false, reason: 'connection refused' };

  it('tells every watcher, past one that throws, and no longer one that stopped watching', () => {
    const { watch, tell } = healthWatchers();
    const told: string[] = [];
    watch(() => {
      throw new Error('the logger broke');
    });
    const stop = watch((e) => void told.push(`first: ${e.reason}`));
    watch((e) => void told.push(`second: ${e.reason}`));
    expect(() => tell(event)).not.toThrow();
    stop();
    tell({ ...event, up: true, reason: 'bound' });
    expect(told).toEqual(['first: connection refused', 'second: connection refused', 'second: bound']);
  });
});
