import { describe, expect, it } from 'vitest';
import { withdrawChannels } from './alpha-name-withdrawal.ts';

describe('withdrawChannels', () => {
  it('withdraws every channel when none is named', () => {
    expect(withdrawChannels(['sms', 'chatapp'])).toEqual({ withdrawn: ['sms', 'chatapp'], left: [] });
  });

  it("withdraws the named channels the name has, in the name's order, and leaves the rest", () => {
    expect(withdrawChannels(['sms', 'chatapp', 'rcs'], ['rcs', 'flashcall', 'sms'])).toEqual({
      withdrawn: ['sms', 'rcs'],
      left: ['chatapp'],
    });
    expect(withdrawChannels(['sms'], ['rcs'])).toEqual({ withdrawn: [], left: ['sms'] });
    expect(withdrawChannels(['sms'], [])).toEqual({ withdrawn: [], left: ['sms'] });
  });
});
