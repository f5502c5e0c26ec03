import { SignJWT, errors, jwtVerify } from 'jose';
import type { JWTPayload } from 'jose';
import { SpillwayError, systemClock } from '@spillway/core';
import type { ChatHubStorage, Clock } from '@spillway/core';
import { z } from 'zod';
import { UnknownKeyError, createSigningKeyRing } from './signing-key-ring.ts';
import type { SigningKeyInfo } from './signing-key-ring.ts';

/** The shortest signing secret taken (`SPILLWAY_JWT_SECRET`, `chatHub.jwtSecret`): 256 bits of ASCII at best. */
export const MIN_JWT_SECRET_LENGTH = 32;

export type { SigningKeyInfo } from './signing-key-ring.ts';

/** Who a token speaks for: a company (account), one of its operators, or a client-API caller. */
export type TokenType = 'company' | 'operator' | 'client';

/** The `iss` of every token Spillway issues. */
export const TOKEN_ISSUER = 'spillway';
/** The `aud` of each token type: chat hub tokens are never accepted by the client API and back. */
export const TOKEN_AUDIENCE: Record<TokenType, string> = {
  company: 'spillway:chat-hub',
  operator: 'spillway:chat-hub',
  client: 'spillway:client',
};
/** The only algorithm accepted: one shared secret, so no asymmetric key can be confused for it. */
const ALGORITHMS = ['HS256'];
/** Longer strings are refused unparsed: no token of ours comes close. */
const MAX_TOKEN_LENGTH = 4096;

/** The verified content of a token. Times are ms since the epoch. */
export interface TokenClaims {
  type: TokenType;
  /** The account (company, `clientId`) the token belongs to. */
  accountId: number;
  /** Set on operator tokens only. */
  operatorId: number | null;
  jti: string;
  kid: string;
  issuedAt: number;
  /** Null for company tokens, which have no expiry. */
  expiresAt: number | null;
}

/**
 * Why a token was refused. `wrong_type` and `revoked` concern a genuine token (403 at the HTTP
 * edge); every other reason means the token proves nothing (401).
 */
export type TokenFailureReason = 'malformed' | 'algorithm' | 'unknown_key' | 'signature' | 'claims' | 'expired' | 'wrong_type' | 'revoked';

/** The answer of {@link TokenService.verify}. `claims` is present whenever the signature held. */
export type TokenVerification =
  { ok: true; claims: TokenClaims } | { ok: false; reason: TokenFailureReason; message: string; claims?: TokenClaims };

/** Issues and verifies company, operator and client tokens; manages the signing keys. */
export interface TokenService {
  /** Loads the keys, generating and storing the first one if there is none. Idempotent. */
  ready(): Promise<void>;
  /** A company token: no expiry, valid until revoked or its key is retired. */
  issueCompanyToken(accountId: number): Promise<string>;
  /** An operator token expiring at `expiresAt` (ms; rounded down to the second). */
  issueOperatorToken(input: { accountId: number; operatorId: number; expiresAt: number }): Promise<string>;
  /** A client-management API token, valid for `clientTokenTtlSeconds`. */
  issueClientToken(accountId: number): Promise<{ token: string; expiresAt: number }>;
  /** Verifies signature, issuer, audience, times, type (when `expected` is given) and revocation. */
  verify(token: string, expected?: TokenType): Promise<TokenVerification>;
  /** Revokes the token these claims came from; it verifies as `revoked` from now on. */
  revoke(claims: TokenClaims): Promise<void>;
  /** Adds a new key that signs from now on; tokens of the older keys verify until retired. */
  rotate(): Promise<SigningKeyInfo>;
  /** Retires a stored key: its tokens stop verifying. Refuses the last active key. */
  retire(kid: string): Promise<boolean>;
  listKeys(): Promise<SigningKeyInfo[]>;
}

/** Options of the chat hub's token service: its storage, the signing secret, token lifetimes and the clock. */
export interface TokenServiceOptions {
  storage: ChatHubStorage;
  /** @default systemClock */
  clock?: Clock;
  /**
   * A signing secret given by configuration (`SPILLWAY_JWT_SECRET`, at least 32 characters). It
   * signs every token and is never stored; stored keys that are not retired still verify.
   * Without it a random key is generated on first start and stored.
   */
  secret?: string;
  /** Allowed clock difference when checking `exp` and `nbf`, seconds. @default 30 */
  clockToleranceSeconds?: number;
  /** Lifetime of client-management API tokens, seconds. @default 3600 */
  clientTokenTtlSeconds?: number;
  /** How long keys read from storage are trusted before re-reading (other processes rotate). @default 60000 */
  keyCacheMs?: number;
}

const claimsSchema = z.object({
  tt: z.enum(['company', 'operator', 'client']),
  cid: z.number().int().positive(),
  oid: z.number().int().positive().optional(),
  jti: z.string().min(1),
  iat: z.number(),
  exp: z.number().optional(),
  aud: z.union([z.string(), z.array(z.string())]),
});

/**
 * Creates the {@link TokenService}. Tokens are HS256 JWTs with `iss` `spillway`, an audience per
 * API, a private `tt` claim naming the token type, `cid` (account id), `oid` (operator id), a
 * `jti` for revocation and a `kid` header naming the signing key.
 */
export function createTokenService(options: TokenServiceOptions): TokenService {
  const { storage } = options;
  const clock = options.clock ?? systemClock;
  const tolerance = options.clockToleranceSeconds ?? 30;
  const clientTtl = options.clientTokenTtlSeconds ?? 3600;
  const keyCacheMs = options.keyCacheMs ?? 60_000;
  if (options.secret !== undefined && options.secret.length < MIN_JWT_SECRET_LENGTH) {
    throw new SpillwayError('bad_request', `SPILLWAY_JWT_SECRET must be at least ${MIN_JWT_SECRET_LENGTH} characters long`);
  }

  const ring = createSigningKeyRing({ storage, clock, keyCacheMs, ...(options.secret === undefined ? {} : { secret: options.secret }) });

  const sign = async (claims: Record<string, unknown>, type: TokenType, subject: number, exp: number | null): Promise<string> => {
    const signing = await ring.signingKey();
    const now = Math.floor(clock.now() / 1000);
    const jwt = new SignJWT({ ...claims, tt: type })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: signing.kid })
      .setIssuer(TOKEN_ISSUER)
      .setAudience(TOKEN_AUDIENCE[type])
      .setSubject(String(subject))
      .setJti(crypto.randomUUID())
      .setIssuedAt(now)
      .setNotBefore(now);
    if (exp !== null) jwt.setExpirationTime(exp);
    return jwt.sign(signing.bytes);
  };

  const toClaims = (payload: JWTPayload, kid: string): TokenClaims | null => {
    const parsed = claimsSchema.safeParse(payload);
    if (!parsed.success) return null;
    const p = parsed.data;
    const audiences = Array.isArray(p.aud) ? p.aud : [p.aud];
    // The audience must be the one of the token's own type, so that `tt` cannot be swapped alone.
    if (!audiences.includes(TOKEN_AUDIENCE[p.tt])) return null;
    if ((p.tt === 'operator') !== (p.oid !== undefined)) return null;
    if (p.tt !== 'company' && p.exp === undefined) return null;
    return {
      type: p.tt,
      accountId: p.cid,
      operatorId: p.oid ?? null,
      jti: p.jti,
      kid,
      issuedAt: p.iat * 1000,
      expiresAt: p.exp === undefined ? null : p.exp * 1000,
    };
  };

  const fail = (reason: TokenFailureReason, message: string, claims?: TokenClaims): TokenVerification =>
    claims ? { ok: false, reason, message, claims } : { ok: false, reason, message };

  const verifySignature = async (token: string): Promise<TokenVerification> => {
    if (token.length > MAX_TOKEN_LENGTH) return fail('malformed', 'token is too long');
    try {
      const { payload, protectedHeader } = await jwtVerify(token, ring.getKey, {
        algorithms: ALGORITHMS,
        issuer: TOKEN_ISSUER,
        audience: [TOKEN_AUDIENCE.company, TOKEN_AUDIENCE.client],
        clockTolerance: tolerance,
        currentDate: new Date(clock.now()),
        requiredClaims: ['jti', 'iat', 'sub'],
      });
      const claims = toClaims(payload, protectedHeader.kid ?? '');
      if (!claims) return fail('claims', 'token claims are invalid');
      // The tolerance is for issuer clocks running ahead (nbf, iat); a token is valid until its
      // exp and not a moment longer (interface section 3).
      if (payload.exp !== undefined && payload.exp * 1000 <= clock.now()) return fail('expired', 'token has expired', claims);
      return { ok: true, claims };
    } catch (error) {
      if (error instanceof UnknownKeyError) return fail('unknown_key', error.message);
      if (error instanceof errors.JWTExpired) {
        const claims = toClaims(error.payload, '');
        return fail('expired', 'token has expired', claims ?? undefined);
      }
      if (error instanceof errors.JWTClaimValidationFailed) {
        const message = error.claim === 'nbf' ? 'token is not valid yet' : `token claim "${error.claim}" is invalid`;
        return fail('claims', message);
      }
      if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
        return fail('algorithm', 'token algorithm is not allowed');
      }
      if (error instanceof errors.JWSSignatureVerificationFailed) return fail('signature', 'token signature is invalid');
      return fail('malformed', 'token is malformed');
    }
  };

  return {
    ready: () => ring.ready(),

    issueCompanyToken: (accountId) => sign({ cid: accountId }, 'company', accountId, null),

    async issueOperatorToken({ accountId, operatorId, expiresAt }) {
      return sign({ cid: accountId, oid: operatorId }, 'operator', operatorId, Math.floor(expiresAt / 1000));
    },

    async issueClientToken(accountId) {
      const exp = Math.floor(clock.now() / 1000) + clientTtl;
      const token = await sign({ cid: accountId }, 'client', accountId, exp);
      return { token, expiresAt: exp * 1000 };
    },

    async verify(token, expected) {
      const result = await verifySignature(token);
      if (!result.ok) return result;
      const { claims } = result;
      if (expected && claims.type !== expected) {
        return fail('wrong_type', `token is ${article(claims.type)} token, not ${article(expected)} token`, claims);
      }
      if (await storage.getRevokedToken(claims.jti)) return fail('revoked', 'token has been revoked', claims);
      if (claims.type === 'operator') {
        const operator = await storage.getOperator(claims.operatorId ?? 0);
        // A deleted operator's tokens die with it.
        if (!operator || operator.accountId !== claims.accountId) return fail('revoked', 'operator no longer exists', claims);
      }
      return result;
    },

    async revoke(claims) {
      const now = clock.now();
      await storage.revokeToken({ jti: claims.jti, expiresAt: claims.expiresAt }, now);
      // Entries of tokens that no tolerance can bring back are dead weight: drop them on the way.
      await storage.pruneRevokedTokens(now - tolerance * 1000 - 1000);
    },

    rotate: () => ring.rotate(),
    retire: (kid) => ring.retire(kid),
    listKeys: () => ring.list(),
  };
}

const article = (type: TokenType): string => (type === 'operator' ? 'an operator' : `a ${type}`);
