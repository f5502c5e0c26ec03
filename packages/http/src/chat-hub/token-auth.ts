import type { Context, MiddlewareHandler } from 'hono';
import { SpillwayError } from '@spillway/core';
import type { Account, Engine } from '@spillway/core';
import type { TokenClaims, TokenService, TokenType } from './token-service.ts';

/** The Hono variables set by {@link requireClientToken}. */
export interface ClientAuthEnv {
  Variables: { account: Account };
}

/**
 * The token of a request: `Authorization: Bearer <token>`, or, where `allowKeyHeader` (company
 * and client tokens), `X-Authorization-Key: <token>`. Missing or malformed header: 401.
 */
export function readToken(c: Context, allowKeyHeader: boolean): string {
  const authorization = c.req.header('authorization');
  if (authorization !== undefined) {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
    if (!match?.[1]) throw new SpillwayError('unauthorized', 'Authorization header must be "Bearer <token>"');
    return match[1];
  }
  const key = c.req.header('x-authorization-key')?.trim();
  if (key && allowKeyHeader) return key;
  // An operator token goes as Bearer only: say so rather than that no token came.
  if (key)
    throw new SpillwayError('unauthorized', 'this route takes its token as "Authorization: Bearer <token>", not X-Authorization-Key');
  throw new SpillwayError('unauthorized', 'a token is required');
}

/** Where a token of each type comes from, for the hint given to a caller who sent something else. */
const TOKEN_SOURCE: Record<TokenType, string> = {
  company: 'POST /api/company/get-token',
  operator: 'POST /api/operator/get-token',
  client: 'POST /api/auth',
};

/** The prefix of Spillway's API keys: a key sent where a token goes is told so, not just "malformed". */
const API_KEY_PREFIX = 'sk_';

/**
 * Verifies a presented token as `expected`: 401 when it proves nothing (malformed, bad
 * signature, unknown key, expired), 403 when it is genuine but of another type or revoked.
 */
export async function authenticateToken(tokens: TokenService, token: string, expected: TokenType): Promise<TokenClaims> {
  const result = await tokens.verify(token, expected);
  if (result.ok) return result.claims;
  switch (result.reason) {
    case 'wrong_type':
    case 'revoked':
      throw new SpillwayError('forbidden', result.message);
    case 'malformed':
      if (token.startsWith(API_KEY_PREFIX)) {
        const article = expected === 'operator' ? 'an' : 'a';
        throw new SpillwayError(
          'unauthorized',
          `${result.message}: it looks like an API key; this route takes ${article} ${expected} token (from ${TOKEN_SOURCE[expected]}), not an API key`,
        );
      }
      throw new SpillwayError('unauthorized', result.message);
    case 'algorithm':
    case 'unknown_key':
    case 'signature':
    case 'claims':
    case 'expired':
      throw new SpillwayError('unauthorized', result.message);
  }
}

/** Loads the account a verified token speaks for; a token of a vanished account proves nothing. */
export async function accountOf(engine: Engine, claims: TokenClaims): Promise<Account> {
  const account = await engine.accounts.get(claims.accountId);
  if (!account) throw new SpillwayError('unauthorized', 'the account of this token no longer exists');
  return account;
}

/**
 * Middleware of the client-management API: accepts a client token (from `POST /api/auth`) as
 * `Authorization: Bearer` or `X-Authorization-Key`, and sets `account` on the context.
 * @example app.use('/api/client/*', requireClientToken({ engine, tokens }))
 */
export function requireClientToken<E extends ClientAuthEnv = ClientAuthEnv>(deps: {
  engine: Engine;
  tokens: TokenService;
}): MiddlewareHandler<E> {
  return async (c, next) => {
    const claims = await authenticateToken(deps.tokens, readToken(c, true), 'client');
    const account = await accountOf(deps.engine, claims);
    (c as unknown as Context<ClientAuthEnv>).set('account', account);
    await next();
  };
}
