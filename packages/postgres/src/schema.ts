import type pg from 'pg';
import { CLIENT_MIGRATIONS } from './client-store.ts';
import { CLIENT_PROVISIONS_MIGRATION } from './client-provision-store.ts';
import { CLIENT_TRANSFERS_CREATED_MIGRATION, CLIENT_TRANSFERS_MIGRATION } from './client-transfer-store.ts';
import { addLoginKeys, warnOfLoginClashes } from './login-keys.ts';
import { REACHABILITY_MIGRATION } from './reachability-store.ts';
import { rows, run, schemaPrefix, transaction } from './pg-util.ts';

/** A schema version: SQL, or a function for one that computes what SQL cannot (login keys). */
type Migration = string | ((client: pg.PoolClient) => Promise<void>);

/**
 * Schema versions, applied in order inside the storage's schema (the migration transaction sets
 * `search_path` to it); `spillway_migrations` records the applied ones. Append new versions,
 * never edit an applied one.
 *
 * Ids BIGINT identities, amounts BIGINT micro-units, times BIGINT milliseconds, JSON columns JSONB
 * (the message row's are JSON: read and written whole, they are not worth jsonb's parse).
 */
const MIGRATIONS: readonly Migration[] = [
  // 1: accounts, messages and the outbox.
  `
  CREATE TABLE accounts (
    id            BIGSERIAL PRIMARY KEY,
    login         TEXT NOT NULL UNIQUE,
    name          TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    currency      TEXT NOT NULL,
    rate_limits   JSONB NOT NULL DEFAULT '{}',
    -- Denormalised running balance: the sum of the wallet, kept in step by every write to it.
    balance       BIGINT NOT NULL DEFAULT 0,
    created_at    BIGINT NOT NULL
  );

  CREATE TABLE api_keys (
    id         BIGSERIAL PRIMARY KEY,
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    key_hash   TEXT NOT NULL UNIQUE,
    prefix     TEXT NOT NULL,
    label      TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    revoked_at BIGINT
  );
  CREATE INDEX api_keys_account ON api_keys(account_id);

  CREATE TABLE alpha_names (
    account_id   BIGINT NOT NULL REFERENCES accounts(id),
    name         TEXT NOT NULL,
    channels     JSONB NOT NULL,
    callback_url TEXT,
    PRIMARY KEY (account_id, name)
  );

  CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );

  CREATE TABLE message_lists (
    id         BIGSERIAL PRIMARY KEY,
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    created_at BIGINT NOT NULL
  );

  CREATE TABLE messages (
    id                  BIGSERIAL PRIMARY KEY,
    list_id             BIGINT NOT NULL REFERENCES message_lists(id),
    account_id          BIGINT NOT NULL REFERENCES accounts(id),
    kind                TEXT NOT NULL,
    guid                TEXT,
    trackin_id          TEXT,
    customer_message_id TEXT,
    content             TEXT NOT NULL,
    steps               JSONB NOT NULL,
    status              TEXT NOT NULL,
    snapshot            JSONB NOT NULL,
    route_ref           TEXT,
    created_at          BIGINT NOT NULL,
    updated_at          BIGINT NOT NULL,
    due_at              BIGINT NOT NULL,
    expires_at          BIGINT,
    cost                BIGINT NOT NULL DEFAULT 0,
    meta                JSONB,
    -- Bumped by every change: commits apply over the version they read (optimistic concurrency).
    version             INTEGER NOT NULL DEFAULT 0
  );
  -- Partial indexes: most messages have none of these ids, and they then cost nothing at ingest.
  CREATE UNIQUE INDEX messages_customer_id ON messages(account_id, customer_message_id)
    WHERE customer_message_id IS NOT NULL;
  CREATE INDEX messages_guid ON messages(guid) WHERE guid IS NOT NULL;
  CREATE INDEX messages_trackin ON messages(account_id, trackin_id) WHERE trackin_id IS NOT NULL;

  CREATE TABLE wallet_transactions (
    id            BIGSERIAL PRIMARY KEY,
    account_id    BIGINT NOT NULL REFERENCES accounts(id),
    kind          TEXT NOT NULL,
    amount        BIGINT NOT NULL,
    balance_after BIGINT NOT NULL,
    message_id    BIGINT REFERENCES messages(id),
    description   TEXT NOT NULL,
    created_at    BIGINT NOT NULL
  );
  CREATE INDEX wallet_transactions_account ON wallet_transactions(account_id, id);

  -- The outbox. lease_until > now means a worker holds the effect.
  CREATE TABLE effects (
    id          BIGSERIAL PRIMARY KEY,
    message_id  BIGINT NOT NULL REFERENCES messages(id),
    kind        TEXT NOT NULL,
    step        INTEGER NOT NULL,
    event       JSONB,
    -- event.type, so that timer cancellation and DUE rescheduling need not look into JSON.
    event_type  TEXT,
    due_at      BIGINT NOT NULL,
    lease_until BIGINT NOT NULL DEFAULT 0
  );
  CREATE INDEX effects_due ON effects(due_at, id);
  CREATE INDEX effects_message ON effects(message_id);

  -- seq orders a message's entries in insertion order.
  CREATE TABLE history (
    seq        BIGSERIAL PRIMARY KEY,
    message_id BIGINT NOT NULL REFERENCES messages(id),
    step       INTEGER NOT NULL,
    channel    TEXT NOT NULL,
    status     TEXT NOT NULL,
    at         BIGINT NOT NULL,
    error      TEXT
  );
  CREATE INDEX history_message ON history(message_id, seq);
  `,
  // 2: chat hub.
  `
  CREATE TABLE chat_hub_operators (
    id         BIGSERIAL PRIMARY KEY,
    account_id BIGINT NOT NULL,
    name       TEXT NOT NULL,
    created_at BIGINT NOT NULL
  );
  CREATE INDEX chat_hub_operators_account ON chat_hub_operators (account_id, id);
  CREATE TABLE chat_hub_revoked_tokens (
    jti        TEXT PRIMARY KEY,
    revoked_at BIGINT NOT NULL,
    expires_at BIGINT
  );
  CREATE INDEX chat_hub_revoked_tokens_expiry ON chat_hub_revoked_tokens (expires_at);
  CREATE TABLE chat_hub_signing_keys (
    seq        BIGSERIAL PRIMARY KEY,
    kid        TEXT NOT NULL UNIQUE,
    secret     TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    retired_at BIGINT
  );
  `,
  // 3: cascade. A binding's alpha-name '' stands for the account default (no NULL in a primary key).
  `
  CREATE TABLE cascade_routes (
    id         TEXT PRIMARY KEY,
    account_id BIGINT NOT NULL,
    revision   INTEGER NOT NULL,
    created_at BIGINT NOT NULL,
    deleted_at BIGINT
  );
  CREATE INDEX cascade_routes_account ON cascade_routes(account_id);
  CREATE TABLE cascade_route_revisions (
    route_id   TEXT NOT NULL REFERENCES cascade_routes(id),
    revision   INTEGER NOT NULL,
    definition JSONB NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (route_id, revision)
  );
  CREATE TABLE cascade_route_bindings (
    account_id BIGINT NOT NULL,
    alpha_name TEXT NOT NULL,
    route_id   TEXT NOT NULL REFERENCES cascade_routes(id),
    PRIMARY KEY (account_id, alpha_name)
  );
  CREATE TABLE cascade_variables (
    account_id BIGINT NOT NULL,
    id         TEXT NOT NULL,
    value      TEXT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, id)
  );
  CREATE TABLE short_links (
    code       TEXT PRIMARY KEY,
    account_id BIGINT NOT NULL,
    message_id BIGINT NOT NULL,
    url        TEXT NOT NULL,
    clicks     BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL
  );
  CREATE UNIQUE INDEX short_links_message_url ON short_links(message_id, url);
  `,
  // 4: inbound messages and their webhook outbox.
  `
  CREATE TABLE inbound_messages (
    id           TEXT PRIMARY KEY,
    account_id   BIGINT NOT NULL,
    alpha_name   TEXT NOT NULL,
    phone_number TEXT NOT NULL,
    text         TEXT NOT NULL,
    received_at  BIGINT NOT NULL
  );
  CREATE INDEX inbound_by_sender ON inbound_messages(account_id, alpha_name, phone_number, received_at);

  -- The outbox of incoming-message callbacks: lease_until > now means a worker holds the delivery.
  CREATE TABLE webhook_deliveries (
    id           BIGSERIAL PRIMARY KEY,
    inbound_id   TEXT NOT NULL UNIQUE REFERENCES inbound_messages(id),
    account_id   BIGINT NOT NULL,
    url          TEXT NOT NULL,
    status       TEXT NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    last_error   TEXT,
    due_at       BIGINT NOT NULL,
    lease_until  BIGINT NOT NULL DEFAULT 0,
    created_at   BIGINT NOT NULL,
    delivered_at BIGINT
  );
  -- Only pending deliveries are ever claimed: the partial index stays as small as the backlog.
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries(due_at, id) WHERE status = 'pending';
  `,
  // 5: the message row is the unit of work (the effects table folds into it), receipts are
  // durable (an inbox), provider ids find their attempts after a restart, and workers heartbeat
  // so that a dead one's work is taken over within seconds.
  `
  ALTER TABLE messages ADD COLUMN work JSONB NOT NULL DEFAULT '[]';
  -- Earliest dueAt of work: when a worker must claim the message next; NULL when it waits for nothing.
  ALTER TABLE messages ADD COLUMN wake_at BIGINT;
  ALTER TABLE messages ADD COLUMN lease_until BIGINT NOT NULL DEFAULT 0;
  ALTER TABLE messages ADD COLUMN lease_owner TEXT;
  -- The worker that committed the acceptance of the attempt whose outcome the message awaits.
  ALTER TABLE messages ADD COLUMN attempt_owner TEXT;
  -- Bit n set: step n was charged (a step is charged once, whatever crashes happen).
  ALTER TABLE messages ADD COLUMN charged BIGINT NOT NULL DEFAULT 0;

  UPDATE messages m SET work = w.work, wake_at = w.wake_at
  FROM (
    SELECT message_id,
      jsonb_agg(CASE kind WHEN 'send' THEN jsonb_build_object('kind', 'send', 'step', step, 'dueAt', due_at)
                ELSE jsonb_build_object('kind', 'event', 'event', event, 'dueAt', due_at) END ORDER BY id) AS work,
      MIN(due_at) AS wake_at
    FROM effects GROUP BY message_id
  ) w
  WHERE m.id = w.message_id;
  UPDATE messages m SET charged =
    (CASE WHEN m.kind = 'message' AND m.cost > 0 THEN 1 ELSE 0 END)
    | COALESCE((SELECT bit_or(1::bigint << h.step) FROM history h WHERE h.message_id = m.id AND h.status = 'Sent'), 0);
  DROP TABLE effects;
  CREATE INDEX messages_wake ON messages(wake_at) WHERE wake_at IS NOT NULL;
  CREATE INDEX messages_attempt_owner ON messages(attempt_owner) WHERE attempt_owner IS NOT NULL;

  ALTER TABLE history ADD COLUMN driver TEXT;
  ALTER TABLE history ADD COLUMN provider_message_id TEXT;

  -- The durable inbox: receipts written before they are acknowledged, applied by a worker round.
  CREATE TABLE receipts (
    id          BIGSERIAL PRIMARY KEY,
    message_id  BIGINT NOT NULL,
    event       JSONB NOT NULL,
    detail      TEXT,
    driver      TEXT,
    at          BIGINT NOT NULL,
    lease_until BIGINT NOT NULL DEFAULT 0,
    lease_owner TEXT
  );

  CREATE TABLE provider_ids (
    driver              TEXT NOT NULL,
    provider_message_id TEXT NOT NULL,
    message_id          BIGINT NOT NULL,
    step                INTEGER NOT NULL,
    PRIMARY KEY (driver, provider_message_id)
  );

  -- Receipts naming a provider id whose acceptance had not committed yet.
  CREATE TABLE orphan_receipts (
    id                  BIGSERIAL PRIMARY KEY,
    driver              TEXT NOT NULL,
    provider_message_id TEXT NOT NULL,
    outcome             TEXT NOT NULL,
    failure             TEXT,
    detail              TEXT,
    at                  BIGINT NOT NULL
  );

  CREATE TABLE workers (
    id           TEXT PRIMARY KEY,
    heartbeat_at BIGINT NOT NULL,
    state        TEXT NOT NULL DEFAULT 'live'
  );
  `,
  // 6 and on: client-management records.
  ...CLIENT_MIGRATIONS,
  // The reachability memory.
  REACHABILITY_MIGRATION,
  // Speed (issue 13): the foreign keys of the rows written per message. PostgreSQL checks each
  // with a trigger and a row lock on the parent, per row: five checks a message at ingest, a
  // third of its cost. The engine is the only writer of these rows, always in the transaction
  // that writes or locks their parent, and no parent is ever deleted.
  `
  ALTER TABLE messages DROP CONSTRAINT IF EXISTS messages_list_id_fkey;
  ALTER TABLE messages DROP CONSTRAINT IF EXISTS messages_account_id_fkey;
  ALTER TABLE wallet_transactions DROP CONSTRAINT IF EXISTS wallet_transactions_account_id_fkey;
  ALTER TABLE wallet_transactions DROP CONSTRAINT IF EXISTS wallet_transactions_message_id_fkey;
  ALTER TABLE history DROP CONSTRAINT IF EXISTS history_message_id_fkey;
  `,
  // Speed (issue 13): the message row's JSON columns as json, not jsonb. The engine reads and
  // writes them whole (the driver parses either into the same values); jsonb parsed and rebuilt
  // every value on each insert and update, about 3 µs of PostgreSQL's CPU a message at ingest
  // (four values a row). The one query that looks inside steps casts them (client-store).
  `
  ALTER TABLE messages
    ALTER COLUMN steps TYPE json USING steps::json,
    ALTER COLUMN snapshot TYPE json USING snapshot::json,
    ALTER COLUMN meta TYPE json USING meta::json,
    ALTER COLUMN work DROP DEFAULT,
    ALTER COLUMN work TYPE json USING work::json,
    ALTER COLUMN work SET DEFAULT '[]';
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
  // Logins are one regardless of case (`accounts.login_key`); logins that already differ only by case are kept.
  addLoginKeys,
  // The other account of a move between two (a transfer, an opening balance) on each of its rows;
  // null in the rows of one account and in those written before.
  `ALTER TABLE wallet_transactions ADD COLUMN counterpart_account_id BIGINT;`,
];

/** Number of schema versions this code knows. */
export const SCHEMA_VERSION = MIGRATIONS.length;
/** The version that made the message row's JSON columns `json` (its test runs it again). */
export const MESSAGE_JSON_COLUMNS =
  MIGRATIONS.findIndex((m) => typeof m === 'string' && m.includes('ALTER COLUMN steps TYPE json USING')) + 1;
/** The version that added `accounts.login_key` (its test runs it again). */
export const LOGIN_KEYS_ADDED = MIGRATIONS.indexOf(addLoginKeys) + 1;

/** First key of the two-key advisory lock that serialises migrations (the second is the schema's hash). */
export const MIGRATION_LOCK = 0x5350_494c; // 'SPIL'

/**
 * Creates the schema if needed and applies the missing versions, in one transaction under a
 * transaction-level advisory lock: engine processes starting together wait for each other
 * instead of racing, however long (the storage's busy timeout, `lock_timeout`, is lifted for it);
 * then warns of logins that differ only by case ({@link warnOfLoginClashes}). Idempotent.
 */
export async function migrate(pool: pg.Pool, schema: string): Promise<void> {
  const prefix = schemaPrefix(schema);
  await transaction(pool, async (client) => {
    // Waits as long as it takes, whatever the storage's busy timeout (`lock_timeout`): for another
    // process's migration (the advisory lock), and for its DDL's locks on tables in use.
    await run(client, 'SET LOCAL lock_timeout = 0');
    await run(client, 'SELECT pg_advisory_xact_lock($1, hashtext($2))', [MIGRATION_LOCK, schema]);
    await run(client, `CREATE SCHEMA IF NOT EXISTS ${prefix.slice(0, -1)}`);
    await run(client, `SET LOCAL search_path TO ${prefix.slice(0, -1)}`);
    await run(client, `CREATE TABLE IF NOT EXISTS ${prefix}spillway_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)`);
    const applied = new Set(
      (await rows<{ version: number }>(client, `SELECT version FROM ${prefix}spillway_migrations`)).map((r) => r.version),
    );
    for (let version = 1; version <= MIGRATIONS.length; version++) {
      if (applied.has(version)) continue;
      const migration = MIGRATIONS[version - 1] ?? '';
      if (typeof migration === 'string') await run(client, migration);
      else await migration(client);
      await run(client, `INSERT INTO ${prefix}spillway_migrations (version, applied_at) VALUES ($1, $2)`, [version, Date.now()]);
    }
  });
  await warnOfLoginClashes(pool, prefix);
}
