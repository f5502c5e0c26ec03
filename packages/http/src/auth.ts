import { SpillwayError } from '@spillway/core';
import type { Account, Engine } from '@spillway/core';
import { loginKey } from '@spillway/core/storage';
import type { Context, MiddlewareHandler } from 'hono';
import { digestHex } from './auth-cache.ts';
import type { Env } from './env.ts';
import { authenticateToken } from './chat-hub/token-auth.ts';

export type { Env } from './env.ts';

/** The challenge sent with every 401 of the messaging API. */
export const BASIC_CHALLENGE = 'Basic realm="spillway", charset="UTF-8"';

/** Credentials found in a request, before they are checked. */
export type Credentials =
  { kind: 'password'; login: string; password: string } | { kind: 'key'; key: string } | { kind: 'token'; token: string };

const JWT = /^eyJ[\w-]*\.[\w-]+\.[\w-]+$/;

/**
 * Reads the credentials of interface 5.1: `X-Authorization-Key: <key>`, `Authorization: Basic`
 * with login and password, or Basic with login `@` and the key as password. The key header wins
 * when both are sent (it is the primary method of the cascade API). Null when none is usable.
 */
export function readCredentials(headers: Pick<Headers, 'get'>): Credentials | null {
  const key = headers.get('x-authorization-key')?.trim();
  if (key) return JWT.test(key) ? { kind: 'token', token: key } : { kind: 'key', key };
  const authorization = headers.get('authorization');
  const bearer = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
  if (bearer?.[1]) return { kind: 'token', token: bearer[1] };
  const match = authorization ? /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(authorization) : null;
  if (!match?.[1]) return null;
  let decoded: string;
  try {
    const binary = atob(match[1]);
    decoded = new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (ch) => ch.charCodeAt(0)));
  } catch {
    return null;
  }
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  const login = decoded.slice(0, colon);
  const password = decoded.slice(colon + 1);
  if (!password) return null;
  if (login === '@') return { kind: 'key', key: password };
  if (!login) return null;
  return { kind: 'password', login, password };
}

/**
 * Checks a login and password behind two limits, both answered 429 with `Retry-After` at once,
 * before any hashing: attempts per login at the data rate, and the login guard's failures per
 * login and per client address with growing delays. A full password queue answers 429 too.
 * Null for a wrong password.
 */
export async function checkPassword(c: Context<Env>, engine: Engine, login: string, password: string): Promise<Account | null> {
  // Counted by the login in any case, as it is looked up: `SHOP` must not get attempts of its own beside `shop`.
  const counted = loginKey(login);
  // Every login may be tried at the data rate at most, right or wrong: each try costs a scrypt.
  const limiter = c.get('rateLimiter');
  if (limiter) {
    const decision = limiter.take(`login:${counted}`, limiter.limitFor('data'));
    if (!decision.allowed) {
      const seconds = Math.max(1, decision.retryAfterSeconds);
      c.header('Retry-After', String(seconds));
      throw new SpillwayError('rate_limited', `Too many login attempts for this login; retry in ${seconds} s`);
    }
  }
  const guard = c.get('loginGuard');
  const admission = guard ? guard.admit(counted, c.get('clientAddress')) : undefined;
  if (admission && !admission.ok) {
    c.header('Retry-After', String(admission.retryAfterSeconds));
    throw new SpillwayError('rate_limited', `Too many failed logins; retry in ${admission.retryAfterSeconds} s`);
  }
  let account: Account | null;
  try {
    account = await engine.accounts.authenticatePassword(login, password);
  } catch (error) {
    admission?.attempt.cancelled();
    if (error instanceof SpillwayError && error.code === 'rate_limited') c.header('Retry-After', '1');
    throw error;
  }
  if (account) admission?.attempt.succeeded();
  else admission?.attempt.failed();
  return account;
}

/** The account the credentials prove, and for a token the end of its life (no cache may outlive it). */
async function verify(c: Context<Env>, credentials: Credentials): Promise<{ account: Account | null; until?: number }> {
  const { engine, tokens } = c.var;
  switch (credentials.kind) {
    case 'key':
      return { account: await engine.accounts.authenticateKey(credentials.key) };
    case 'password':
      return { account: await checkPassword(c, engine, credentials.login, credentials.password) };
    case 'token': {
      if (!tokens) return { account: null };
      // 401 for a token that proves nothing, 403 for a genuine one of another type or revoked.
      const claims = await authenticateToken(tokens, credentials.token, 'client');
      const account = await engine.accounts.get(claims.accountId);
      return claims.expiresAt === null ? { account } : { account, until: claims.expiresAt };
    }
  }
}

/**
 * Adds the Basic challenge, except to scripts that say so (`X-Requested-With: XMLHttpRequest`, as
 * the designer does): they handle the 401 themselves, where a challenge would make the browser
 * open its own login prompt (and hang a headless one).
 */
function challenge(c: Context<Env>): void {
  if (c.req.header('x-requested-with') !== 'XMLHttpRequest') c.header('WWW-Authenticate', BASIC_CHALLENGE);
}

/** The auth cache's key of `credentials`: a SHA-256, so that no clear secret is kept as a map key. */
export function authCacheKey(credentials: Credentials): string {
  return digestHex(
    credentials.kind === 'key'
      ? `k\0${credentials.key}`
      : credentials.kind === 'token'
        ? `t\0${credentials.token}`
        : `p\0${credentials.login}\0${credentials.password}`,
  );
}

/**
 * Middleware authenticating an account by any of the three methods of interface 5.1 and setting
 * it as `c.var.account`. Missing or wrong credentials answer 401 with a Basic challenge.
 * Successful checks are cached briefly (see `createAuthCache`), keyed by a SHA-256 of the
 * credential headers so that no clear secret is kept as a map key, and dropped as soon as the
 * storage's credential revision moves (a key, token or password revoked in any process).
 */
export function authenticate(): MiddlewareHandler<Env> {
  return async (c, next) => {
    const credentials = readCredentials(c.req.raw.headers);
    if (!credentials) {
      challenge(c);
      throw new SpillwayError('unauthorized', 'Authentication required: HTTP Basic (login:password or @:key) or X-Authorization-Key');
    }
    const cache = c.get('authCache');
    const cacheKey = authCacheKey(credentials);
    // Read before verifying: a revocation committed meanwhile changes it, and the entry is dropped.
    const revision = await cache.revision();
    let account = cache.get(cacheKey, revision);
    if (!account) {
      const verified = await verify(c, credentials);
      account = verified.account ?? undefined;
      if (!account) {
        challenge(c);
        throw new SpillwayError('unauthorized', 'Invalid credentials');
      }
      cache.set(cacheKey, account, revision, verified.until);
    }
    c.set('account', account);
    await next();
  };
}
