import { describe, expect, it } from 'vitest';
import type { AlphaName } from '../types/account.ts';
import type { ChannelId } from '../types/channel.ts';
import { approvedChannels } from './alpha-names.ts';

/** A storage whose list is the turn's memo, read before `current` changed; `getAlphaName` reads `current`. */
function staleList(listed: AlphaName[], current: AlphaName[]) {
  const reads: string[] = [];
  return {
    reads,
    listAlphaNames: async () => listed,
    getAlphaName: async (_: number, name: string) => {
      reads.push(name);
      return current.find((a) => a.name === name) ?? null;
    },
  };
}
const alpha = (name: string, channels: ChannelId[]) => ({ accountId: 1, name, channels, callbackUrl: null }) satisfies AlphaName;

describe('approved channels of an account', () => {
  it('reads a name the memoized list refuses again before refusing it, and only such names', async () => {
    const storage = staleList([alpha('Shop', ['sms'])], [alpha('Shop', ['sms', 'chatapp']), alpha('News', ['sms'])]);
    const approved = await approvedChannels(storage, 1, [
      { name: 'Shop', channel: 'sms' },
      { name: 'Shop', channel: 'chatapp' },
      { name: 'News' },
      { name: 'Gone' },
    ]);
    expect([...(approved.get('Shop') ?? [])].sort()).toEqual(['chatapp', 'sms']);
    expect([...(approved.get('News') ?? [])]).toEqual(['sms']);
    expect(approved.has('Gone')).toBe(false);
    expect(storage.reads.sort()).toEqual(['Gone', 'News', 'Shop']);
  });

  it('costs no read more when the list allows every use', async () => {
    const storage = staleList([alpha('Shop', ['sms'])], []);
    const approved = await approvedChannels(storage, 1, [{ name: 'Shop', channel: 'sms' }, { name: 'Shop' }]);
    expect(approved.has('Shop')).toBe(true);
    expect(storage.reads).toEqual([]);
  });

  it('drops a name withdrawn since the list was read', async () => {
    const storage = staleList([alpha('Shop', ['sms'])], []);
    const approved = await approvedChannels(storage, 1, [{ name: 'Shop', channel: 'chatapp' }]);
    expect(approved.has('Shop')).toBe(false);
  });
});
