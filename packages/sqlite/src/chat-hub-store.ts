import type Database from 'better-sqlite3';
import { createCredentialRevision } from './credential-revision.ts';
import { SpillwayError } from '@spillway/core';
import { chatHubOperatorFromRow, revokedTokenFromRow, signingKeyFromRow } from '@spillway/core/storage';
import type { ChatHubStorage } from '@spillway/core';
import type { ChatHubOperatorRow, RevokedTokenRow, SigningKeyRow } from '@spillway/core/storage';

/** Schema of the chat hub tables; run by the storage's migrate(). */
export const CHAT_HUB_SCHEMA = `
CREATE TABLE IF NOT EXISTS chat_hub_operators (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS chat_hub_operators_account ON chat_hub_operators (account_id, id);
CREATE TABLE IF NOT EXISTS chat_hub_revoked_tokens (
  jti TEXT PRIMARY KEY,
  revoked_at INTEGER NOT NULL,
  expires_at INTEGER
);
CREATE INDEX IF NOT EXISTS chat_hub_revoked_tokens_expiry ON chat_hub_revoked_tokens (expires_at);
CREATE TABLE IF NOT EXISTS chat_hub_signing_keys (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  kid TEXT NOT NULL UNIQUE,
  secret TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  retired_at INTEGER
);
`;

/** The chat hub part of the SQLite storage, over the storage's database handle. */
export function createChatHubStore(db: Database.Database): ChatHubStorage {
  const insertOperator = db.prepare<[number, string, number], ChatHubOperatorRow>(
    'INSERT INTO chat_hub_operators (account_id, name, created_at) VALUES (?, ?, ?) RETURNING *',
  );
  const selectOperator = db.prepare<[number], ChatHubOperatorRow>('SELECT * FROM chat_hub_operators WHERE id = ?');
  const selectOperators = db.prepare<[number], ChatHubOperatorRow>('SELECT * FROM chat_hub_operators WHERE account_id = ? ORDER BY id');
  const removeOperator = db.prepare<[number, number]>('DELETE FROM chat_hub_operators WHERE account_id = ? AND id = ?');

  const insertRevoked = db.prepare<[string, number, number | null]>(
    'INSERT INTO chat_hub_revoked_tokens (jti, revoked_at, expires_at) VALUES (?, ?, ?) ON CONFLICT (jti) DO NOTHING',
  );
  const selectRevoked = db.prepare<[string], RevokedTokenRow>('SELECT * FROM chat_hub_revoked_tokens WHERE jti = ?');
  const pruneRevoked = db.prepare<[number]>('DELETE FROM chat_hub_revoked_tokens WHERE expires_at IS NOT NULL AND expires_at < ?');

  const insertKey = db.prepare<[string, string, number], SigningKeyRow>(
    'INSERT INTO chat_hub_signing_keys (kid, secret, created_at) VALUES (?, ?, ?) ON CONFLICT (kid) DO NOTHING RETURNING kid, secret, created_at, retired_at',
  );
  const selectActiveKeys = db.prepare<[], SigningKeyRow>(
    'SELECT kid, secret, created_at, retired_at FROM chat_hub_signing_keys WHERE retired_at IS NULL ORDER BY seq',
  );
  const selectKeys = db.prepare<[], SigningKeyRow>('SELECT kid, secret, created_at, retired_at FROM chat_hub_signing_keys ORDER BY seq');
  const retireKey = db.prepare<[number, string]>('UPDATE chat_hub_signing_keys SET retired_at = ? WHERE kid = ? AND retired_at IS NULL');

  const revision = createCredentialRevision(db);
  // A retired key signs nothing any process may still accept: the revision tells their key rings.
  const retireTx = db.transaction((at: number, kid: string): boolean => {
    const retired = retireKey.run(at, kid).changes > 0;
    if (retired) revision.bump();
    return retired;
  });
  const revokeTokenTx = db.transaction((jti: string, at: number, expiresAt: number | null) => {
    if (insertRevoked.run(jti, at, expiresAt).changes > 0) revision.bump();
  });

  return {
    async createOperator(input, at) {
      const row = insertOperator.get(input.accountId, input.name, at);
      if (!row) throw new SpillwayError('internal', 'operator was not created');
      return chatHubOperatorFromRow(row);
    },
    async getOperator(id) {
      const row = selectOperator.get(id);
      return row ? chatHubOperatorFromRow(row) : null;
    },
    async listOperators(accountId) {
      return selectOperators.all(accountId).map(chatHubOperatorFromRow);
    },
    async deleteOperator(accountId, id) {
      return removeOperator.run(accountId, id).changes > 0;
    },

    async revokeToken(input, at) {
      revokeTokenTx.immediate(input.jti, at, input.expiresAt);
    },
    async getRevokedToken(jti) {
      const row = selectRevoked.get(jti);
      return row ? revokedTokenFromRow(row) : null;
    },
    async pruneRevokedTokens(before) {
      return pruneRevoked.run(before).changes;
    },

    async addSigningKey(input, at) {
      const row = insertKey.get(input.kid, input.secret, at);
      if (!row) throw new SpillwayError('conflict', `signing key ${input.kid} exists`);
      return signingKeyFromRow(row);
    },
    async listActiveSigningKeys() {
      return selectActiveKeys.all().map(signingKeyFromRow);
    },
    async listSigningKeys() {
      return selectKeys.all().map(signingKeyFromRow);
    },
    async retireSigningKey(kid, at) {
      return retireTx(at, kid);
    },
  };
}
