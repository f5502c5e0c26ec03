import type pg from 'pg';
import { clientProvisionFromRow } from '@spillway/core/storage';
import type { ClientProvisionRecord, ClientStorage } from '@spillway/core';
import type { ClientProvisionRow } from '@spillway/core/storage';
import { conflictOnUnique, row, run, type Queryable } from './pg-util.ts';

/**
 * The sub-clients created under an idempotency key of their parent: one row per key, written in
 * the transaction that creates the client (`createLinkedClient`), never holding the clear API key
 * (appended to the storage's migrations, with the index its pruning reads).
 */
export const CLIENT_PROVISIONS_MIGRATION = `
  CREATE TABLE client_provisions (
    account_id      BIGINT NOT NULL REFERENCES accounts(id),
    idempotency_key TEXT NOT NULL,
    client_id       BIGINT NOT NULL REFERENCES accounts(id),
    login           TEXT NOT NULL,
    name            TEXT NOT NULL,
    balance         BIGINT NOT NULL,
    alpha_names     JSONB NOT NULL,
    key_id          BIGINT,
    created_at      BIGINT NOT NULL,
    PRIMARY KEY (account_id, idempotency_key)
  );
  CREATE INDEX client_provisions_created ON client_provisions(created_at);
`;

/**
 * Records a creation under its parent's key on `db` (the client of the caller's transaction): a
 * key recorded already is a `conflict`, and one another transaction is recording waits for it.
 */
export function clientProvisionInsert(x: string): (record: ClientProvisionRecord, db: Queryable) => Promise<ClientProvisionRecord> {
  return async (r, db) => {
    const recorded = await conflictOnUnique(
      () =>
        row<ClientProvisionRow>(
          db,
          `INSERT INTO ${x}client_provisions (account_id, idempotency_key, client_id, login, name, balance, alpha_names, key_id, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9) RETURNING *`,
          [r.accountId, r.idempotencyKey, r.clientId, r.login, r.name, r.balance, JSON.stringify(r.alphaNames), r.keyId, r.createdAt],
        ),
      `Idempotency-Key '${r.idempotencyKey}' was used for another client`,
    );
    return clientProvisionFromRow(recorded!);
  };
}

/** `ClientStorage.getClientProvision` and `pruneClientProvisions` over a pg pool, in the tables of `x` (the schema prefix). */
export function createClientProvisionStore(pool: pg.Pool, x: string): Pick<ClientStorage, 'getClientProvision' | 'pruneClientProvisions'> {
  return {
    async getClientProvision(accountId, key) {
      const found = await row<ClientProvisionRow>(
        pool,
        `SELECT * FROM ${x}client_provisions WHERE account_id = $1 AND idempotency_key = $2`,
        [accountId, key],
      );
      return found ? clientProvisionFromRow(found) : null;
    },
    // Its own statement, outside any creation's transaction: creations of other accounts never wait for it.
    pruneClientProvisions: (before) => run(pool, `DELETE FROM ${x}client_provisions WHERE created_at < $1`, [before]),
  };
}
