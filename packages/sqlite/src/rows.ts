import { type Account, type AlphaName, type SenderApplication, type StoredMessage } from '@spillway/core';
import {
  accountFromRow,
  alphaNameFromRow,
  senderApplicationFromRow,
  storedMessageFromRow,
  type AccountRow,
  type AlphaNameRow,
  type MessageRow,
  type SenderApplicationRow,
} from '@spillway/core/storage';

// Row shapes as better-sqlite3 returns them: JSON columns are TEXT, parsed here before the
// shared mappers of @spillway/core. Rows without JSON use the core shapes and mappers as they are.

/** `T` with the JSON columns `K` as better-sqlite3 returns them: text (null stays null). */
type JsonText<T, K extends keyof T> = Omit<T, K> & { [P in K]: null extends T[P] ? string | null : string };

export type SqliteAccountRow = JsonText<AccountRow, 'rate_limits'>;
export type SqliteAlphaNameRow = JsonText<AlphaNameRow, 'channels'>;
export type SqliteSenderApplicationRow = JsonText<SenderApplicationRow, 'channels' | 'details'>;

/** Parses `rate_limits`, then maps with core's accountFromRow. */
export function toAccount(row: SqliteAccountRow): Account {
  return accountFromRow({ ...row, rate_limits: JSON.parse(row.rate_limits) as AccountRow['rate_limits'] });
}

/** Parses `channels`, then maps with core's alphaNameFromRow. */
export function toAlphaName(row: SqliteAlphaNameRow): AlphaName {
  return alphaNameFromRow({ ...row, channels: JSON.parse(row.channels) as AlphaNameRow['channels'] });
}

/** Parses `channels` and `details`, then maps with core's senderApplicationFromRow. */
export function toSenderApplication(row: SqliteSenderApplicationRow): SenderApplication {
  return senderApplicationFromRow({
    ...row,
    channels: JSON.parse(row.channels) as SenderApplicationRow['channels'],
    details: JSON.parse(row.details) as SenderApplicationRow['details'],
  });
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
 * with {@link messageFromTuple}. The scalar columns come as one JSON array a row: better-sqlite3
 * hands each column over through V8's API (a number, a string or a null, and a property set on the
 * row's array), about 0.13 us a column whatever its value, where one JSON.parse of the array
 * makes all seventeen for less (a 500-message read of a bulk ingest's rows, mapped: 3.2 against
 * 3.8 us a row, `docs/decisions.md`, "Speed, thirteenth pass"). The JSON columns stay columns of
 * their own: the snapshot is shared by its text, and the others are parsed as they are. Every
 * scalar column is an INTEGER or a TEXT, which JSON carries exactly.
 */
export const MESSAGE_COLUMNS = `json_array(id, list_id, account_id, kind, guid, trackin_id, customer_message_id, content, status,
  route_ref, created_at, updated_at, due_at, expires_at, cost, version, charged), steps, snapshot, work, meta`;

/** The scalar columns of a `messages` row, as the JSON array of {@link MESSAGE_COLUMNS} holds them. */
type MessageScalars = [
  id: number,
  listId: number,
  accountId: number,
  kind: string,
  guid: string | null,
  trackinId: string | null,
  customerMessageId: string | null,
  content: string,
  status: string,
  routeRef: string | null,
  createdAt: number,
  updatedAt: number,
  dueAt: number,
  expiresAt: number | null,
  cost: number,
  version: number,
  charged: number,
];

/** A row of {@link MESSAGE_COLUMNS} as better-sqlite3's `raw()` gives it: the scalars and the JSON columns as text. */
export type MessageTuple = [scalars: string, steps: string, snapshot: string, work: string, meta: string | null];

/** Parses a {@link MessageTuple} (the snapshot shared by its text), then maps with core's storedMessageFromRow. */
export function messageFromTuple(row: MessageTuple): StoredMessage {
  const r = JSON.parse(row[0]) as MessageScalars;
  return storedMessageFromRow({
    id: r[0],
    list_id: r[1],
    account_id: r[2],
    kind: r[3],
    guid: r[4],
    trackin_id: r[5],
    customer_message_id: r[6],
    content: r[7],
    steps: JSON.parse(row[1]) as MessageRow['steps'],
    status: r[8],
    snapshot: parseSnapshot(row[2]),
    route_ref: r[9],
    created_at: r[10],
    updated_at: r[11],
    due_at: r[12],
    expires_at: r[13],
    cost: r[14],
    meta: row[4] === null ? null : (JSON.parse(row[4]) as MessageRow['meta']),
    version: r[15],
    work: JSON.parse(row[3]) as MessageRow['work'],
    charged: r[16],
  });
}
