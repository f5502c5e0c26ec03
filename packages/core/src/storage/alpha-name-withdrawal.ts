import type { ChannelId } from '../types/channel.ts';

/**
 * Splits the channels of an alpha-name into those a revocation withdraws and those it leaves, both
 * in the name's own order: `withdrawn` omitted withdraws every channel (the name is revoked entirely).
 * Nothing withdrawn means the revocation leaves the name as it is.
 *
 * @example
 * withdrawChannels(['sms', 'chatapp', 'rcs'], ['rcs', 'sms']); // { withdrawn: ['sms', 'rcs'], left: ['chatapp'] }
 */
export function withdrawChannels(
  channels: readonly ChannelId[],
  withdrawn?: readonly ChannelId[],
): { withdrawn: ChannelId[]; left: ChannelId[] } {
  if (withdrawn === undefined) return { withdrawn: [...channels], left: [] };
  const taken = new Set(withdrawn);
  return { withdrawn: channels.filter((c) => taken.has(c)), left: channels.filter((c) => !taken.has(c)) };
}
