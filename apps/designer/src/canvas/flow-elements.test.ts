import { describe, expect, it } from 'vitest';
import { stepMeta } from './flow-elements.ts';

describe('stepMeta', () => {
  it('shows a timeout of 0 as it is instead of "ttl share"', () => {
    expect(stepMeta({ id: 'sms', channel: 'sms', timeoutSeconds: 0 })).toBe('timeout 0 s');
  });

  it('shows the ttl share only without a timeout, and a required session', () => {
    expect(stepMeta({ id: 'sms', channel: 'sms' })).toBe('ttl share');
    expect(stepMeta({ id: 'sms', channel: 'sms', timeoutSeconds: 90, requireSession: true })).toBe('timeout 90 s · session');
  });
});
