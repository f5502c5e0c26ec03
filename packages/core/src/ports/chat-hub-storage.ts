/** An operator of a chat hub company (a Spillway account): a person who answers chats. */
export interface ChatHubOperator {
  /** Integer id, unique across all companies (the chat hub API addresses operators by it). */
  id: number;
  /** The company (account) the operator belongs to. */
  accountId: number;
  name: string;
  /** Ms since the epoch. */
  createdAt: number;
}

/** A secret that signs chat hub and client tokens (HS256), addressed by the token header's `kid`. */
export interface SigningKey {
  kid: string;
  /** The secret, base64url-encoded (32 random bytes for generated keys). */
  secret: string;
  /** Ms since the epoch. */
  createdAt: number;
  /** Ms since the epoch; a retired key verifies nothing any more. Null while active. */
  retiredAt: number | null;
}

/** A revoked token, remembered by its `jti`. */
export interface RevokedToken {
  jti: string;
  revokedAt: number;
  /**
   * When the token would have expired anyway (ms), so that the entry can be pruned after it;
   * null for tokens without expiry (company tokens), which are remembered for ever.
   */
  expiresAt: number | null;
}

/** Chat hub: companies' operators, revoked tokens and signing keys. */
export interface ChatHubStorage {
  /** Creates an operator of the account with a fresh integer id. */
  createOperator(input: { accountId: number; name: string }, at: number): Promise<ChatHubOperator>;
  /** The operator with this id, whatever its company (callers check ownership: 403 versus 404). */
  getOperator(id: number): Promise<ChatHubOperator | null>;
  /** The account's operators, oldest first. */
  listOperators(accountId: number): Promise<ChatHubOperator[]>;
  /** Deletes the account's operator; false when the account has no operator with this id. */
  deleteOperator(accountId: number, id: number): Promise<boolean>;

  /** Records a revocation; revoking an already revoked jti keeps the first entry. */
  revokeToken(input: { jti: string; expiresAt: number | null }, at: number): Promise<void>;
  /** The revocation of this jti, or null when it was never revoked. */
  getRevokedToken(jti: string): Promise<RevokedToken | null>;
  /** Forgets revocations of tokens that expired before `before` (ms); answers how many. */
  pruneRevokedTokens(before: number): Promise<number>;

  /** Stores a new, active signing key. Fails with a `conflict` SpillwayError on a taken kid. */
  addSigningKey(input: { kid: string; secret: string }, at: number): Promise<SigningKey>;
  /** Keys not retired, oldest first (the last one signs). */
  listActiveSigningKeys(): Promise<SigningKey[]>;
  /** Every key, retired ones included, oldest first. */
  listSigningKeys(): Promise<SigningKey[]>;
  /** Retires an active key; false when no active key has this kid. */
  retireSigningKey(kid: string, at: number): Promise<boolean>;

  /**
   * The credential revision of a storage that also keeps accounts (`AccountStorage.credentialRevision`),
   * which a key's retirement and a token's revocation bump in their transaction: a key ring that
   * sees it move reads the keys again at once, so a key retired by any process is refused from the
   * next token on. Without it, keys read from storage are trusted for the ring's cache time.
   */
  credentialRevision?(): Promise<number>;
}
