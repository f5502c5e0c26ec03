// Test fixtures of the chat hub: an in-memory ChatHubStorage and an Engine-shaped fake that
// answers only what the chat hub uses (accounts.authenticatePassword/get, storage). Not exported.
import { Hono } from 'hono';
import { SpillwayError, createFakeClock } from '@spillway/core';
import type { Account, AccountService, ChatHubOperator, ChatHubStorage, Engine, FakeClock, RevokedToken, SigningKey } from '@spillway/core';
import { createChatHubRoutes } from './chat-hub-routes.ts';
import { createTokenService } from './token-service.ts';
import type { TokenService, TokenServiceOptions } from './token-service.ts';

/** A ChatHubStorage in memory; checked against the storage contract too. */
export function createMemoryChatHubStorage(): ChatHubStorage {
  const operators = new Map<number, ChatHubOperator>();
  const revoked = new Map<string, RevokedToken>();
  const keys: SigningKey[] = [];
  let nextId = 1;
  return {
    async createOperator(input, at) {
      const op = { id: nextId++, accountId: input.accountId, name: input.name, createdAt: at };
      operators.set(op.id, op);
      return { ...op };
    },
    getOperator: async (id) => (operators.has(id) ? { ...operators.get(id)! } : null),
    listOperators: async (accountId) => [...operators.values()].filter((o) => o.accountId === accountId).map((o) => ({ ...o })),
    async deleteOperator(accountId, id) {
      if (operators.get(id)?.accountId !== accountId) return false;
      return operators.delete(id);
    },
    async revokeToken(input, at) {
      if (!revoked.has(input.jti)) revoked.set(input.jti, { jti: input.jti, revokedAt: at, expiresAt: input.expiresAt });
    },
    getRevokedToken: async (jti) => (revoked.has(jti) ? { ...revoked.get(jti)! } : null),
    async pruneRevokedTokens(before) {
      let n = 0;
      for (const [jti, r] of revoked) if (r.expiresAt !== null && r.expiresAt < before && revoked.delete(jti)) n++;
      return n;
    },
    async addSigningKey(input, at) {
      if (keys.some((k) => k.kid === input.kid)) throw new SpillwayError('conflict', `signing key ${input.kid} exists`);
      const key = { kid: input.kid, secret: input.secret, createdAt: at, retiredAt: null };
      keys.push(key);
      return { ...key };
    },
    listActiveSigningKeys: async () => keys.filter((k) => k.retiredAt === null).map((k) => ({ ...k })),
    listSigningKeys: async () => keys.map((k) => ({ ...k })),
    async retireSigningKey(kid, at) {
      const key = keys.find((k) => k.kid === kid && k.retiredAt === null);
      if (!key) return false;
      key.retiredAt = at;
      return true;
    },
  };
}

/** Accounts of the fake engine: login → password and account. */
export function createFakeAccounts(
  list: Array<{ account: Account; password: string }>,
): Pick<AccountService, 'authenticatePassword' | 'get'> {
  return {
    authenticatePassword: async (login, password) =>
      list.find((e) => e.account.login === login && e.password === password)?.account ?? null,
    get: async (id) => list.find((e) => e.account.id === id)?.account ?? null,
  };
}

export const ACME: Account = { id: 1, login: 'acme', name: 'Acme', currency: 'EUR', rateLimits: {}, createdAt: Date.UTC(2025, 0, 1) };
export const GLOBEX: Account = { id: 2, login: 'globex', name: 'Globex', currency: 'EUR', rateLimits: {}, createdAt: Date.UTC(2025, 0, 2) };

export interface Harness {
  app: Hono;
  clock: FakeClock;
  storage: ChatHubStorage;
  tokens: TokenService;
  engine: Engine;
}

/** The chat hub routes behind the error handler the app-wide one will mirror. */
export function createHarness(options: Partial<TokenServiceOptions> = {}): Harness {
  const clock = createFakeClock();
  const storage = createMemoryChatHubStorage();
  const accounts = createFakeAccounts([
    { account: ACME, password: 'acme-pass' },
    { account: GLOBEX, password: 'globex-pass' },
  ]);
  const engine = { clock, storage, accounts } as unknown as Engine;
  const tokens = createTokenService({ storage, clock, ...options });
  const app = new Hono();
  app.onError((err, c) =>
    err instanceof SpillwayError
      ? c.json(err.toJSON(), err.status as 400)
      : c.json({ error: 'internal', message: String(err), status: 500 }, 500),
  );
  app.route('/', createChatHubRoutes({ engine, tokens, clock }));
  return { app, clock, storage, tokens, engine };
}
