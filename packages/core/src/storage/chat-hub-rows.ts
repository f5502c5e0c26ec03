import type { ChatHubOperator, RevokedToken, SigningKey } from '../ports/chat-hub-storage.ts';

/** A `chat_hub_operators` row. */
export interface ChatHubOperatorRow {
  id: number;
  account_id: number;
  name: string;
  created_at: number;
}

/** A `chat_hub_revoked_tokens` row. */
export interface RevokedTokenRow {
  jti: string;
  revoked_at: number;
  expires_at: number | null;
}

/** A `chat_hub_signing_keys` row, without its sequence number. */
export interface SigningKeyRow {
  kid: string;
  secret: string;
  created_at: number;
  retired_at: number | null;
}

/** Maps a `chat_hub_operators` row to the operator. */
export function chatHubOperatorFromRow(row: ChatHubOperatorRow): ChatHubOperator {
  return { id: row.id, accountId: row.account_id, name: row.name, createdAt: row.created_at };
}

/** Maps a `chat_hub_revoked_tokens` row to the revoked token. */
export function revokedTokenFromRow(row: RevokedTokenRow): RevokedToken {
  return { jti: row.jti, revokedAt: row.revoked_at, expiresAt: row.expires_at };
}

/** Maps a `chat_hub_signing_keys` row to the signing key. */
export function signingKeyFromRow(row: SigningKeyRow): SigningKey {
  return { kid: row.kid, secret: row.secret, createdAt: row.created_at, retiredAt: row.retired_at };
}
