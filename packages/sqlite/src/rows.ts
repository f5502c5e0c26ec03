import { type Account, type AlphaName, type StoredMessage } from '@spillway/core';
import {
  accountFromRow,
  alphaNameFromRow,
  storedMessageFromRow,
  type AccountRow,
  type AlphaNameRow,
  type MessageRow,
} from '@spillway/core/storage';

// Row shapes as better-sqlite3 returns them: JSON columns are TEXT, parsed here before the
// shared mappers of @spillway/core. Rows without JSON use the core shapes and mappers as they are.

/** `T` with the JSON columns `K` as better-sqlite3 returns them: text (null stays null). */
type JsonText<T, K extends keyof T> = Omit<T, K> & { [P in K]: null extends T[P] ? string | null : string };

export type SqliteAccountRow = JsonText<AccountRow, 'rate_limits'>;
export type SqliteAlphaNameRow = JsonText<AlphaNameRow, 'channels'>;

/** Parses `rate_limits`, then maps with core's accountFromRow. */
export function toAccount(row: SqliteAccountRow): Account {
  return accountFromRow({ ...row, rate_limits: JSON.parse(row.rate_limits) as AccountRow['rate_limits'] });
}

/** Parses `channels`, then maps with core's alphaNameFromRow. */
export function toAlphaName(row: SqliteAlphaNameRow): AlphaName {
  return alphaNameFromRow({ ...row, channels: JSON.parse(row.channels) as AlphaNameRow['channels'] });
}

/**
 * Parsed snapshots by their text: a machine has few distinct states, so the messages of a round
 * share a handful of them. Snapshots are never mutated (a step makes a new one).
 */
const snapshots = new Map<string, MessageRow['snapshot']>();
const SNAPSHOTS_MAX = 1000;

function parseSnapshot(text: string): MessageRow['snapshot'] {
  let snapshot = snapshots.get(text);
  if (snapshot === undefined) {
    if (snapshots.size >= SNAPSHOTS_MAX) snapshots.clear();
    snapshot = JSON.parse(text) as MessageRow['snapshot'];
    snapshots.set(text, snapshot);
  }
  return snapshot;
}

/**
 * The columns of a whole `messages` row, in the order of a {@link MessageTuple}: every read of
 * whole messages selects them and reads its rows as arrays (better-sqlite3's `raw()`), parsed
 * with {@link messageFromTuple}. An array a row and three small JSON.parse calls (the steps, the
 * work list, the meta when set) cost about a quarter less than one `json_object` text a row
 * parsed whole (500-message reads of a bulk ingest's rows, `docs/decisions.md`, "Speed, eleventh
 * pass"), which in turn cost less than a row object of 21 columns.
 */
export const MESSAGE_COLUMNS = `id, list_id, account_id, kind, guid, trackin_id, customer_message_id, content, steps, status,
  snapshot, route_ref, created_at, updated_at, due_at, expires_at, cost, meta, version, work, charged`;

/** A row of {@link MESSAGE_COLUMNS} as better-sqlite3's `raw()` gives it: the JSON columns as text. */
export type MessageTuple = [
  id: number,
  listId: number,
  accountId: number,
  kind: string,
  guid: string | null,
  trackinId: string | null,
  customerMessageId: string | null,
  content: string,
  steps: string,
  status: string,
  snapshot: string,
  routeRef: string | null,
  createdAt: number,
  updatedAt: number,
  dueAt: number,
  expiresAt: number | null,
  cost: number,
  meta: string | null,
  version: number,
  work: string,
  charged: number,
];

/** Parses a {@link MessageTuple}'s JSON columns (the snapshot shared by its text), then maps with core's storedMessageFromRow. */
export function messageFromTuple(r: MessageTuple): StoredMessage {
  return storedMessageFromRow({
    id: r[0],
    list_id: r[1],
    account_id: r[2],
    kind: r[3],
    guid: r[4],
    trackin_id: r[5],
    customer_message_id: r[6],
    content: r[7],
    steps: JSON.parse(r[8]) as MessageRow['steps'],
    status: r[9],
    snapshot: parseSnapshot(r[10]),
    route_ref: r[11],
    created_at: r[12],
    updated_at: r[13],
    due_at: r[14],
    expires_at: r[15],
    cost: r[16],
    meta: r[17] === null ? null : (JSON.parse(r[17]) as MessageRow['meta']),
    version: r[18],
    work: JSON.parse(r[19]) as MessageRow['work'],
    charged: r[20],
  });
}
