import type Database from 'better-sqlite3';
import { clientProvisionFromRow } from '@spillway/core/storage';
import type { ClientProvisionRecord, ClientStorage } from '@spillway/core';
import type { ClientProvisionRow } from '@spillway/core/storage';
import { conflictOnUnique, lazy } from './sqlite-util.ts';

/**
 * The sub-clients created under an idempotency key of their parent: one row per key, written in
 * the transaction that creates the client (`createLinkedClient`), never holding the clear API key
 * (appended to the storage's migrations, with the index its pruning reads).
 */
export const CLIENT_PROVISIONS_MIGRATION = `
  CREATE TABLE client_provisions (
    account_id      INTEGER NOT NULL REFERENCES accounts(id),
    idempotency_key TEXT NOT NULL,
    client_id       INTEGER NOT NULL REFERENCES accounts(id),
    login           TEXT NOT NULL,
    name            TEXT NOT NULL,
    balance         INTEGER NOT NULL,
    alpha_names     TEXT NOT NULL,
    key_id          INTEGER,
    created_at      INTEGER NOT NULL,
    PRIMARY KEY (account_id, idempotency_key)
  ) WITHOUT ROWID;
  CREATE INDEX client_provisions_created ON client_provisions(created_at);
`;

type SqliteClientProvisionRow = Omit<ClientProvisionRow, 'alpha_names'> & { alpha_names: string };

const fromRow = (row: SqliteClientProvisionRow): ClientProvisionRecord =>
  clientProvisionFromRow({ ...row, alpha_names: JSON.parse(row.alpha_names) as ClientProvisionRow['alpha_names'] });

/**
 * Records a creation under its parent's key, inside the caller's transaction of the handle: a key
 * recorded already is a `conflict` (the transaction then rolls the client back).
 */
export function clientProvisionInsert(db: Database.Database): (record: ClientProvisionRecord) => ClientProvisionRecord {
  const st = lazy(() =>
    db.prepare<[number, string, number, string, string, number, string, number | null, number], SqliteClientProvisionRow>(
      `INSERT INTO client_provisions (account_id, idempotency_key, client_id, login, name, balance, alpha_names, key_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    ),
  );
  return (r) =>
    fromRow(
      conflictOnUnique(
        () =>
          st().get(
            r.accountId,
            r.idempotencyKey,
            r.clientId,
            r.login,
            r.name,
            r.balance,
            JSON.stringify(r.alphaNames),
            r.keyId,
            r.createdAt,
          )!,
        `Idempotency-Key '${r.idempotencyKey}' was used for another client`,
      ),
    );
}

/** `ClientStorage.getClientProvision` and `pruneClientProvisions` over one better-sqlite3 handle. */
export function createClientProvisionStore(db: Database.Database): Pick<ClientStorage, 'getClientProvision' | 'pruneClientProvisions'> {
  const st = lazy(() => ({
    select: db.prepare<[number, string], SqliteClientProvisionRow>(
      'SELECT * FROM client_provisions WHERE account_id = ? AND idempotency_key = ?',
    ),
    prune: db.prepare<[number]>('DELETE FROM client_provisions WHERE created_at < ?'),
  }));
  return {
    getClientProvision: async (accountId, key) => {
      const row = st().select.get(accountId, key);
      return row ? fromRow(row) : null;
    },
    pruneClientProvisions: async (before) => st().prune.run(before).changes,
  };
}
