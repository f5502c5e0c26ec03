import type { ErrorDetail } from '../errors.ts';
import type { Storage } from '../ports/storage.ts';
import type { ChannelId } from '../types/channel.ts';
import { channelOfType, MESSAGE_TYPES } from '../types/channel.ts';
import type { MessageType } from '../types/channel.ts';

/** A sender to check: the `from` of one attempt, where it stands in the request, on its channel. */
export interface Sender {
  path: string;
  from: string;
  channel: ChannelId;
}

const isType = (value: unknown): value is MessageType => (MESSAGE_TYPES as readonly unknown[]).includes(value);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The senders of a raw send request, read leniently: every item (and fallback) with a string
 * `from` and a known `type`, whether or not the rest of it is valid, so that a bad sender is
 * reported together with the schema's findings rather than after them.
 */
export function sendersOf(items: readonly unknown[], prefix = 'messages'): Sender[] {
  const senders: Sender[] = [];
  const add = (item: unknown, path: string) => {
    if (isObject(item) && typeof item['from'] === 'string' && isType(item['type'])) {
      senders.push({ path: `${path}.from`, from: item['from'], channel: channelOfType(item['type']) });
    }
  };
  items.forEach((item, i) => {
    const path = `${prefix}[${i}]`;
    add(item, path);
    const fallbacks = isObject(item) ? item['fallbacks'] : undefined;
    if (Array.isArray(fallbacks)) fallbacks.forEach((f, j) => add(f, `${path}.fallbacks[${j}]`));
  });
  return senders;
}

/** An alpha-name a request uses, and the channel it is used on (any channel when absent). */
export interface AlphaNameUse {
  name: string;
  channel?: ChannelId;
}

/**
 * The channels each alpha-name of the account is approved on, for the uses of one request. The
 * list is the storage's, which the sends of one turn of the event loop share (an approval another
 * connection committed during that turn is not in it): a name the list would refuse is read again
 * on its own before it is refused, so that a client who was told a moment ago that the name is
 * approved can send from it at once. A refusal costs one more read a name; an accepted send none.
 */
export async function approvedChannels(
  storage: Pick<Storage, 'listAlphaNames' | 'getAlphaName'>,
  accountId: number,
  uses: readonly AlphaNameUse[],
): Promise<Map<string, ReadonlySet<ChannelId>>> {
  const approved = new Map<string, ReadonlySet<ChannelId>>();
  for (const a of await storage.listAlphaNames(accountId)) approved.set(a.name, new Set(a.channels));
  const refused = new Set(uses.filter((u) => !allows(approved, u)).map((u) => u.name));
  for (const name of refused) {
    const fresh = await storage.getAlphaName(accountId, name);
    if (fresh) approved.set(name, new Set(fresh.channels));
    else approved.delete(name);
  }
  return approved;
}

const allows = (approved: ReadonlyMap<string, ReadonlySet<ChannelId>>, use: AlphaNameUse): boolean =>
  use.channel === undefined ? approved.has(use.name) : (approved.get(use.name)?.has(use.channel) ?? false);

/**
 * Every attempt must be sent from an alpha-name the account has approved on the attempt's
 * channel: one detail per offending sender.
 */
export async function alphaNameIssues(storage: Storage, accountId: number, senders: readonly Sender[]): Promise<ErrorDetail[]> {
  if (senders.length === 0) return [];
  const approved = await approvedChannels(
    storage,
    accountId,
    senders.map((s) => ({ name: s.from, channel: s.channel })),
  );
  const details: ErrorDetail[] = [];
  for (const s of senders) {
    const channels = approved.get(s.from);
    if (channels?.has(s.channel)) continue;
    details.push({
      path: s.path,
      message: channels
        ? `alpha-name "${s.from}" is not approved for channel ${s.channel}`
        : `alpha-name "${s.from}" is not an approved alpha-name of this account`,
    });
  }
  return details;
}
