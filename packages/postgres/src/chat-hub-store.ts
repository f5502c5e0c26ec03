import type pg from 'pg';
import { SpillwayError } from '@spillway/core';
import type { ChatHubOperator, ChatHubStorage, RevokedToken, SigningKey } from '@spillway/core';
import { row, rows, run } from './pg-util.ts';

interface OperatorRow {
  id: number;
  account_id: number;
  name: string;
  created_at: number;
}

interface RevokedRow {
  jti: string;
  revoked_at: number;
  expires_at: number | null;
}

interface KeyRow {
  kid: string;
  secret: string;
  created_at: number;
  retired_at: number | null;
}

const toOperator = (r: OperatorRow): ChatHubOperator => ({ id: r.id, accountId: r.account_id, name: r.name, createdAt: r.created_at });
const toRevoked = (r: RevokedRow): RevokedToken => ({ jti: r.jti, revokedAt: r.revoked_at, expiresAt: r.expires_at });
const toKey = (r: KeyRow): SigningKey => ({ kid: r.kid, secret: r.secret, createdAt: r.created_at, retiredAt: r.retired_at });

const KEY_FIELDS = 'kid, secret, created_at, retired_at';

/** The chat hub part of the PostgreSQL storage, in the tables of `x` (the schema prefix). */
export function createChatHubStore(pool: pg.Pool, x: string): ChatHubStorage {
  return {
    async createOperator(input, at) {
      const created = await row<OperatorRow>(pool, `INSERT INTO ${x}chat_hub_operators (account_id, name, created_at) VALUES ($1, $2, $3) RETURNING *`, [
        input.accountId,
        input.name,
        at,
      ]);
      if (!created) throw new SpillwayError('internal', 'operator was not created');
      return toOperator(created);
    },
    async getOperator(id) {
      const found = await row<OperatorRow>(pool, `SELECT * FROM ${x}chat_hub_operators WHERE id = $1`, [id]);
      return found ? toOperator(found) : null;
    },
    async listOperators(accountId) {
      return (await rows<OperatorRow>(pool, `SELECT * FROM ${x}chat_hub_operators WHERE account_id = $1 ORDER BY id`, [accountId])).map(toOperator);
    },
    async deleteOperator(accountId, id) {
      return (await run(pool, `DELETE FROM ${x}chat_hub_operators WHERE account_id = $1 AND id = $2`, [accountId, id])) > 0;
    },

    async revokeToken(input, at) {
      await run(pool, `INSERT INTO ${x}chat_hub_revoked_tokens (jti, revoked_at, expires_at) VALUES ($1, $2, $3) ON CONFLICT (jti) DO NOTHING`, [
        input.jti,
        at,
        input.expiresAt,
      ]);
    },
    async getRevokedToken(jti) {
      const found = await row<RevokedRow>(pool, `SELECT * FROM ${x}chat_hub_revoked_tokens WHERE jti = $1`, [jti]);
      return found ? toRevoked(found) : null;
    },
    async pruneRevokedTokens(before) {
      return run(pool, `DELETE FROM ${x}chat_hub_revoked_tokens WHERE expires_at IS NOT NULL AND expires_at < $1`, [before]);
    },

    async addSigningKey(input, at) {
      const created = await row<KeyRow>(
        pool,
        `INSERT INTO ${x}chat_hub_signing_keys (kid, secret, created_at) VALUES ($1, $2, $3) ON CONFLICT (kid) DO NOTHING RETURNING ${KEY_FIELDS}`,
        [input.kid, input.secret, at],
      );
      if (!created) throw new SpillwayError('conflict', `signing key ${input.kid} exists`);
      return toKey(created);
    },
    async listActiveSigningKeys() {
      return (await rows<KeyRow>(pool, `SELECT ${KEY_FIELDS} FROM ${x}chat_hub_signing_keys WHERE retired_at IS NULL ORDER BY seq`)).map(toKey);
    },
    async listSigningKeys() {
      return (await rows<KeyRow>(pool, `SELECT ${KEY_FIELDS} FROM ${x}chat_hub_signing_keys ORDER BY seq`)).map(toKey);
    },
    async retireSigningKey(kid, at) {
      return (await run(pool, `UPDATE ${x}chat_hub_signing_keys SET retired_at = $1 WHERE kid = $2 AND retired_at IS NULL`, [at, kid])) > 0;
    },
  };
}
