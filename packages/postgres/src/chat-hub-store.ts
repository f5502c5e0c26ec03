import type pg from 'pg';
import { bumpRevisionCte, credentialRevisionReader } from './credential-revision.ts';
import { SpillwayError } from '@spillway/core';
import { chatHubOperatorFromRow, revokedTokenFromRow, signingKeyFromRow } from '@spillway/core/storage';
import type { ChatHubStorage } from '@spillway/core';
import type { ChatHubOperatorRow, RevokedTokenRow, SigningKeyRow } from '@spillway/core/storage';
import { row, rows, run } from './pg-util.ts';

const KEY_FIELDS = 'kid, secret, created_at, retired_at';

/** The chat hub part of the PostgreSQL storage, in the tables of `x` (the schema prefix). */
export function createChatHubStore(pool: pg.Pool, x: string): ChatHubStorage {
  return {
    async createOperator(input, at) {
      const created = await row<ChatHubOperatorRow>(
        pool,
        `INSERT INTO ${x}chat_hub_operators (account_id, name, created_at) VALUES ($1, $2, $3) RETURNING *`,
        [input.accountId, input.name, at],
      );
      if (!created) throw new SpillwayError('internal', 'operator was not created');
      return chatHubOperatorFromRow(created);
    },
    async getOperator(id) {
      const found = await row<ChatHubOperatorRow>(pool, `SELECT * FROM ${x}chat_hub_operators WHERE id = $1`, [id]);
      return found ? chatHubOperatorFromRow(found) : null;
    },
    async listOperators(accountId) {
      return (
        await rows<ChatHubOperatorRow>(pool, `SELECT * FROM ${x}chat_hub_operators WHERE account_id = $1 ORDER BY id`, [accountId])
      ).map(chatHubOperatorFromRow);
    },
    async deleteOperator(accountId, id) {
      return (await run(pool, `DELETE FROM ${x}chat_hub_operators WHERE account_id = $1 AND id = $2`, [accountId, id])) > 0;
    },

    async revokeToken(input, at) {
      await run(
        pool,
        `WITH changed AS (
           INSERT INTO ${x}chat_hub_revoked_tokens (jti, revoked_at, expires_at) VALUES ($1, $2, $3) ON CONFLICT (jti) DO NOTHING RETURNING jti
         ), ${bumpRevisionCte(x, 'changed')}
         SELECT 1`,
        [input.jti, at, input.expiresAt],
      );
      credentialRevisionReader(pool, x).clear();
    },
    async getRevokedToken(jti) {
      const found = await row<RevokedTokenRow>(pool, `SELECT * FROM ${x}chat_hub_revoked_tokens WHERE jti = $1`, [jti]);
      return found ? revokedTokenFromRow(found) : null;
    },
    async pruneRevokedTokens(before) {
      return run(pool, `DELETE FROM ${x}chat_hub_revoked_tokens WHERE expires_at IS NOT NULL AND expires_at < $1`, [before]);
    },

    async addSigningKey(input, at) {
      const created = await row<SigningKeyRow>(
        pool,
        `INSERT INTO ${x}chat_hub_signing_keys (kid, secret, created_at) VALUES ($1, $2, $3) ON CONFLICT (kid) DO NOTHING RETURNING ${KEY_FIELDS}`,
        [input.kid, input.secret, at],
      );
      if (!created) throw new SpillwayError('conflict', `signing key ${input.kid} exists`);
      return signingKeyFromRow(created);
    },
    async listActiveSigningKeys() {
      return (
        await rows<SigningKeyRow>(pool, `SELECT ${KEY_FIELDS} FROM ${x}chat_hub_signing_keys WHERE retired_at IS NULL ORDER BY seq`)
      ).map(signingKeyFromRow);
    },
    async listSigningKeys() {
      return (await rows<SigningKeyRow>(pool, `SELECT ${KEY_FIELDS} FROM ${x}chat_hub_signing_keys ORDER BY seq`)).map(signingKeyFromRow);
    },
    async retireSigningKey(kid, at) {
      // A retired key signs nothing any process may still accept: the revision tells their key rings.
      const retired = await rows(
        pool,
        `WITH changed AS (
           UPDATE ${x}chat_hub_signing_keys SET retired_at = $1 WHERE kid = $2 AND retired_at IS NULL RETURNING kid
         ), ${bumpRevisionCte(x, 'changed')}
         SELECT kid FROM changed`,
        [at, kid],
      );
      credentialRevisionReader(pool, x).clear();
      return retired.length > 0;
    },
  };
}
