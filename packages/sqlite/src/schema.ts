import { INBOUND_SCHEMA } from './inbound-store.ts';
import type Database from 'better-sqlite3';
import { CASCADE_SCHEMA } from './cascade-store.ts';
import { CHAT_HUB_SCHEMA } from './chat-hub-store.ts';
import { CLIENT_MIGRATIONS, ORGANIZATION_IDS_MIGRATION } from './client-store.ts';
import { CLIENT_PROVISIONS_MIGRATION } from './client-provision-store.ts';
import { CLIENT_TRANSFERS_CREATED_MIGRATION, CLIENT_TRANSFERS_MIGRATION } from './client-transfer-store.ts';
import { addLoginKeys, warnOfLoginClashes } from './login-keys.ts';
import { REACHABILITY_MIGRATION } from './reachability-store.ts';

/**
 * The other account of a move between two (a transfer, an opening balance) on each of its rows;
 * null in the rows of one account, and in those written before it.
 */
const WALLET_COUNTERPARTS_MIGRATION = `ALTER TABLE wallet_transactions ADD COLUMN counterpart_account_id INTEGER;`;

/** A schema version: SQL, or a function for one that computes what SQL cannot (login keys). */
type Migration = string | ((db: Database.Database) => void);

/**
 * Schema versions of the accounts and messages tables, applied in order; `PRAGMA user_version`
 * records how many have run. Append new versions, never edit an applied one.
 *
 * Amounts are integer micro-units, times integer milliseconds, JSON columns TEXT.
 */
const MIGRATIONS: readonly Migration[] = [
  `
  CREATE TABLE accounts (
    id            INTEGER PRIMARY KEY,
    login         TEXT NOT NULL UNIQUE,
    name          TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    currency      TEXT NOT NULL,
    rate_limits   TEXT NOT NULL DEFAULT '{}',
    -- Denormalised running balance: the sum of the wallet, kept in step by every write to it.
    balance       INTEGER NOT NULL DEFAULT 0,
    created_at    INTEGER NOT NULL
  );

  CREATE TABLE api_keys (
    id         INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    key_hash   TEXT NOT NULL UNIQUE,
    prefix     TEXT NOT NULL,
    label      TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
  );
  CREATE INDEX api_keys_account ON api_keys(account_id);

  CREATE TABLE alpha_names (
    account_id   INTEGER NOT NULL REFERENCES accounts(id),
    name         TEXT NOT NULL,
    channels     TEXT NOT NULL,
    callback_url TEXT,
    PRIMARY KEY (account_id, name)
  ) WITHOUT ROWID;

  CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
  ) WITHOUT ROWID;

  CREATE TABLE message_lists (
    id         INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    created_at INTEGER NOT NULL
  );

  CREATE TABLE messages (
    id                  INTEGER PRIMARY KEY,
    list_id             INTEGER NOT NULL REFERENCES message_lists(id),
    account_id          INTEGER NOT NULL REFERENCES accounts(id),
    kind                TEXT NOT NULL,
    guid                TEXT,
    trackin_id          TEXT,
    customer_message_id TEXT,
    content             TEXT NOT NULL,
    steps               TEXT NOT NULL,
    status              TEXT NOT NULL,
    snapshot            TEXT NOT NULL,
    route_ref           TEXT,
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL,
    due_at              INTEGER NOT NULL,
    expires_at          INTEGER,
    cost                INTEGER NOT NULL DEFAULT 0,
    meta                TEXT,
    -- Bumped by every change: commits apply over the version they read (optimistic concurrency).
    version             INTEGER NOT NULL DEFAULT 0
  );
  -- Partial indexes: most messages have none of these ids, and they then cost nothing at ingest.
  CREATE UNIQUE INDEX messages_customer_id ON messages(account_id, customer_message_id)
    WHERE customer_message_id IS NOT NULL;
  CREATE INDEX messages_guid ON messages(guid) WHERE guid IS NOT NULL;
  CREATE INDEX messages_trackin ON messages(account_id, trackin_id) WHERE trackin_id IS NOT NULL;

  CREATE TABLE wallet_transactions (
    id            INTEGER PRIMARY KEY,
    account_id    INTEGER NOT NULL REFERENCES accounts(id),
    kind          TEXT NOT NULL,
    amount        INTEGER NOT NULL,
    balance_after INTEGER NOT NULL,
    message_id    INTEGER REFERENCES messages(id),
    description   TEXT NOT NULL,
    created_at    INTEGER NOT NULL
  );
  CREATE INDEX wallet_transactions_account ON wallet_transactions(account_id);

  -- The outbox. lease_until > now means a worker holds the effect.
  CREATE TABLE effects (
    id          INTEGER PRIMARY KEY,
    message_id  INTEGER NOT NULL REFERENCES messages(id),
    kind        TEXT NOT NULL,
    step        INTEGER NOT NULL,
    event       TEXT,
    -- event.type, so that timer cancellation and DUE rescheduling need not parse JSON.
    event_type  TEXT,
    due_at      INTEGER NOT NULL,
    lease_until INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX effects_due ON effects(due_at, id);
  CREATE INDEX effects_message ON effects(message_id);

  -- seq is the rowid: it orders a message's entries in insertion order.
  CREATE TABLE history (
    seq        INTEGER PRIMARY KEY,
    message_id INTEGER NOT NULL REFERENCES messages(id),
    step       INTEGER NOT NULL,
    channel    TEXT NOT NULL,
    status     TEXT NOT NULL,
    at         INTEGER NOT NULL,
    error      TEXT
  );
  CREATE INDEX history_message ON history(message_id, seq);
  `,
  // 2: the message row is the unit of work (the effects table folds into it), receipts are
  // durable (an inbox), provider ids find their attempts after a restart, and workers heartbeat
  // so that a dead one's work is taken over within seconds.
  `
  ALTER TABLE messages ADD COLUMN work TEXT NOT NULL DEFAULT '[]';
  -- Earliest dueAt of work: when a worker must claim the message next; NULL when it waits for nothing.
  ALTER TABLE messages ADD COLUMN wake_at INTEGER;
  ALTER TABLE messages ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE messages ADD COLUMN lease_owner TEXT;
  -- The worker that committed the acceptance of the attempt whose outcome the message awaits.
  ALTER TABLE messages ADD COLUMN attempt_owner TEXT;
  -- Bit n set: step n was charged (a step is charged once, whatever crashes happen).
  ALTER TABLE messages ADD COLUMN charged INTEGER NOT NULL DEFAULT 0;

  UPDATE messages SET
    work = (SELECT json_group_array(CASE e.kind
              WHEN 'send' THEN json_object('kind', 'send', 'step', e.step, 'dueAt', e.due_at)
              ELSE json_object('kind', 'event', 'event', json(e.event), 'dueAt', e.due_at) END)
            FROM effects e WHERE e.message_id = messages.id),
    wake_at = (SELECT MIN(e.due_at) FROM effects e WHERE e.message_id = messages.id)
  WHERE id IN (SELECT message_id FROM effects);
  UPDATE messages SET charged =
    (CASE WHEN kind = 'message' AND cost > 0 THEN 1 ELSE 0 END)
    | COALESCE((SELECT SUM(1 << step) FROM (SELECT DISTINCT h.step FROM history h WHERE h.message_id = messages.id AND h.status = 'Sent')), 0);
  DROP TABLE effects;
  CREATE INDEX messages_wake ON messages(wake_at) WHERE wake_at IS NOT NULL;
  CREATE INDEX messages_attempt_owner ON messages(attempt_owner) WHERE attempt_owner IS NOT NULL;

  ALTER TABLE history ADD COLUMN driver TEXT;
  ALTER TABLE history ADD COLUMN provider_message_id TEXT;

  -- The durable inbox: receipts written before they are acknowledged, applied by a worker round.
  CREATE TABLE receipts (
    id          INTEGER PRIMARY KEY,
    message_id  INTEGER NOT NULL,
    event       TEXT NOT NULL,
    detail      TEXT,
    driver      TEXT,
    at          INTEGER NOT NULL,
    lease_until INTEGER NOT NULL DEFAULT 0,
    lease_owner TEXT
  );

  CREATE TABLE provider_ids (
    driver              TEXT NOT NULL,
    provider_message_id TEXT NOT NULL,
    message_id          INTEGER NOT NULL,
    step                INTEGER NOT NULL,
    PRIMARY KEY (driver, provider_message_id)
  ) WITHOUT ROWID;

  -- Receipts naming a provider id whose acceptance had not committed yet.
  CREATE TABLE orphan_receipts (
    id                  INTEGER PRIMARY KEY,
    driver              TEXT NOT NULL,
    provider_message_id TEXT NOT NULL,
    outcome             TEXT NOT NULL,
    failure             TEXT,
    detail              TEXT,
    at                  INTEGER NOT NULL
  );

  CREATE TABLE workers (
    id           TEXT PRIMARY KEY,
    heartbeat_at INTEGER NOT NULL,
    state        TEXT NOT NULL DEFAULT 'live'
  );
  `,
  ...CLIENT_MIGRATIONS,
  // The reachability memory.
  REACHABILITY_MIGRATION,
  // The per-message rows lose their foreign keys, as PostgreSQL's did (docs/decisions.md): each
  // was a parent lookup per row at ingest, four a message, a sixth of a bulk request's insert.
  // The engine is the only writer of these rows, always in the transaction that writes their
  // parent, and no account, list or message is deleted. SQLite cannot drop a constraint: the
  // three tables are rebuilt with the same columns, ids and indexes.
  `
  CREATE TABLE messages_rebuilt (
    id                  INTEGER PRIMARY KEY,
    list_id             INTEGER NOT NULL,
    account_id          INTEGER NOT NULL,
    kind                TEXT NOT NULL,
    guid                TEXT,
    trackin_id          TEXT,
    customer_message_id TEXT,
    content             TEXT NOT NULL,
    steps               TEXT NOT NULL,
    status              TEXT NOT NULL,
    snapshot            TEXT NOT NULL,
    route_ref           TEXT,
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL,
    due_at              INTEGER NOT NULL,
    expires_at          INTEGER,
    cost                INTEGER NOT NULL DEFAULT 0,
    meta                TEXT,
    version             INTEGER NOT NULL DEFAULT 0,
    work                TEXT NOT NULL DEFAULT '[]',
    wake_at             INTEGER,
    lease_until         INTEGER NOT NULL DEFAULT 0,
    lease_owner         TEXT,
    attempt_owner       TEXT,
    charged             INTEGER NOT NULL DEFAULT 0
  );
  INSERT INTO messages_rebuilt (id, list_id, account_id, kind, guid, trackin_id, customer_message_id, content, steps,
      status, snapshot, route_ref, created_at, updated_at, due_at, expires_at, cost, meta, version, work, wake_at,
      lease_until, lease_owner, attempt_owner, charged)
    SELECT id, list_id, account_id, kind, guid, trackin_id, customer_message_id, content, steps,
      status, snapshot, route_ref, created_at, updated_at, due_at, expires_at, cost, meta, version, work, wake_at,
      lease_until, lease_owner, attempt_owner, charged
    FROM messages;

  CREATE TABLE wallet_transactions_rebuilt (
    id            INTEGER PRIMARY KEY,
    account_id    INTEGER NOT NULL,
    kind          TEXT NOT NULL,
    amount        INTEGER NOT NULL,
    balance_after INTEGER NOT NULL,
    message_id    INTEGER,
    description   TEXT NOT NULL,
    created_at    INTEGER NOT NULL
  );
  INSERT INTO wallet_transactions_rebuilt (id, account_id, kind, amount, balance_after, message_id, description, created_at)
    SELECT id, account_id, kind, amount, balance_after, message_id, description, created_at FROM wallet_transactions;

  CREATE TABLE history_rebuilt (
    seq                 INTEGER PRIMARY KEY,
    message_id          INTEGER NOT NULL,
    step                INTEGER NOT NULL,
    channel             TEXT NOT NULL,
    status              TEXT NOT NULL,
    at                  INTEGER NOT NULL,
    error               TEXT,
    driver              TEXT,
    provider_message_id TEXT
  );
  INSERT INTO history_rebuilt (seq, message_id, step, channel, status, at, error, driver, provider_message_id)
    SELECT seq, message_id, step, channel, status, at, error, driver, provider_message_id FROM history;

  -- Children first: with foreign_keys on, a parent cannot be dropped under rows that refer to it.
  DROP TABLE history;
  DROP TABLE wallet_transactions;
  DROP TABLE messages;
  ALTER TABLE messages_rebuilt RENAME TO messages;
  ALTER TABLE wallet_transactions_rebuilt RENAME TO wallet_transactions;
  ALTER TABLE history_rebuilt RENAME TO history;

  CREATE UNIQUE INDEX messages_customer_id ON messages(account_id, customer_message_id)
    WHERE customer_message_id IS NOT NULL;
  CREATE INDEX messages_guid ON messages(guid) WHERE guid IS NOT NULL;
  CREATE INDEX messages_trackin ON messages(account_id, trackin_id) WHERE trackin_id IS NOT NULL;
  CREATE INDEX messages_wake ON messages(wake_at) WHERE wake_at IS NOT NULL;
  CREATE INDEX messages_attempt_owner ON messages(attempt_owner) WHERE attempt_owner IS NOT NULL;
  CREATE INDEX messages_account_created ON messages(account_id, created_at);
  CREATE INDEX wallet_transactions_account ON wallet_transactions(account_id);
  CREATE INDEX history_message ON history(message_id, seq);
  `,
  // One pending application per sender, no longer one live (pending or approved): an approved
  // alpha-name may be applied for again on more channels (the unique index refused it, so a name
  // could never be extended). The service refuses an application that adds nothing.
  `
  DROP INDEX sender_applications_live;
  CREATE UNIQUE INDEX sender_applications_pending ON sender_applications(account_id, kind, name) WHERE status = 'pending';
  `,
  // Transfers between a parent and its sub-client made under an idempotency key.
  CLIENT_TRANSFERS_MIGRATION,
  // Their keys are pruned by age (`pruneClientTransfers`).
  CLIENT_TRANSFERS_CREATED_MIGRATION,
  // Sub-clients created under an idempotency key of their parent, pruned by age (`pruneClientProvisions`).
  CLIENT_PROVISIONS_MIGRATION,
  // A deleted organization's id is never given to a new one (AUTOINCREMENT; the table is rebuilt).
  ORGANIZATION_IDS_MIGRATION,
  // Logins are one regardless of case (`accounts.login_key`); logins that already differ only by case are kept.
  addLoginKeys,
  // The other account of a move between two (a transfer, an opening balance) on each of its rows.
  WALLET_COUNTERPARTS_MIGRATION,
];

/** Number of schema versions this code knows. */
export const SCHEMA_VERSION = MIGRATIONS.length;
/** The version that rebuilt the per-message tables without their foreign keys (its tests migrate to the one before). */
export const MESSAGE_FOREIGN_KEYS_DROPPED =
  MIGRATIONS.findIndex((m) => typeof m === 'string' && m.includes('CREATE TABLE messages_rebuilt')) + 1;
/** The version that rebuilt `organizations` with AUTOINCREMENT (its tests migrate to the one before). */
export const ORGANIZATION_IDS_KEPT = MIGRATIONS.indexOf(ORGANIZATION_IDS_MIGRATION) + 1;
/** The version that added `accounts.login_key` (its tests migrate to the one before). */
export const LOGIN_KEYS_ADDED = MIGRATIONS.indexOf(addLoginKeys) + 1;
/** The version that added `wallet_transactions.counterpart_account_id` (its test migrates to the one before). */
export const WALLET_COUNTERPARTS_ADDED = MIGRATIONS.indexOf(WALLET_COUNTERPARTS_MIGRATION) + 1;

/**
 * Brings the database to {@link SCHEMA_VERSION}, then runs the chat hub and cascade schemas
 * (written with `IF NOT EXISTS`, so they are safe to run at every start), and warns of logins
 * that differ only by case ({@link warnOfLoginClashes}). Idempotent.
 */
export function migrate(db: Database.Database, /** Tests of a migration stop before it. @internal */ target = MIGRATIONS.length): void {
  const apply = db.transaction(() => {
    const current = db.pragma('user_version', { simple: true }) as number;
    for (let version = current; version < target; version++) {
      const migration = MIGRATIONS[version] ?? '';
      if (typeof migration === 'string') db.exec(migration);
      else migration(db);
    }
    if (current < target) db.pragma(`user_version = ${target}`);
    if (CHAT_HUB_SCHEMA) db.exec(CHAT_HUB_SCHEMA);
    if (CASCADE_SCHEMA) db.exec(CASCADE_SCHEMA);
    if (INBOUND_SCHEMA) db.exec(INBOUND_SCHEMA);
  });
  // IMMEDIATE: two processes starting on one file must not both read version 0 and race.
  apply.immediate();
  if (target >= LOGIN_KEYS_ADDED) warnOfLoginClashes(db);
}
