import type { ChannelId } from '../types/channel.ts';
import type { UnreachableEntry } from '../types/reachability.ts';

/** An `unreachable_numbers` row, as both adapters read it. */
export interface UnreachableRow {
  account_id: number;
  phone_number: string;
  channel: string;
  reason: string;
  driver: string | null;
  message_id: number | null;
  at: number;
  expires_at: number;
}

export function unreachableFromRow(row: UnreachableRow): UnreachableEntry {
  return {
    accountId: Number(row.account_id),
    phoneNumber: row.phone_number,
    channel: row.channel as ChannelId,
    reason: row.reason,
    driver: row.driver,
    messageId: row.message_id === null ? null : Number(row.message_id),
    at: Number(row.at),
    expiresAt: Number(row.expires_at),
  };
}

/** Of several entries for one key, the one answered last: what a batch upsert keeps. */
export function latestPerKey(entries: readonly UnreachableEntry[]): UnreachableEntry[] {
  const latest = new Map<string, UnreachableEntry>();
  for (const e of entries) {
    const key = `${e.accountId}|${e.phoneNumber}|${e.channel}`;
    const seen = latest.get(key);
    if (!seen || e.at >= seen.at) latest.set(key, e);
  }
  return [...latest.values()];
}
