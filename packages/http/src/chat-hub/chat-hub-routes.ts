import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import { SpillwayError } from '@spillway/core';
import type { Account, ChatHubOperator, Clock, Engine } from '@spillway/core';
import { z } from 'zod';
import { readBody } from './read-body.ts';
import { accountOf, authenticateToken, readToken } from './token-auth.ts';
import type { TokenClaims, TokenService } from './token-service.ts';

/** Dependencies of {@link createChatHubRoutes}. */
export interface ChatHubRoutesDeps {
  engine: Engine;
  tokens: TokenService;
  clock: Clock;
}

/** Hono variables of the chat hub routes, set by their token middlewares. */
export interface ChatHubEnv {
  Variables: { account: Account; claims: TokenClaims; token: string };
}

/** Operator tokens live at most this long (interface section 8.4). */
export const MAX_OPERATOR_TOKEN_MS = 24 * 60 * 60 * 1000;

const credentialsSchema = z.object({ login: z.string().min(1), password: z.string().min(1) });
const operatorSchema = z.object({ name: z.string().trim().min(1).max(200) });
/** ISO 8601 date-time; one without an offset is read as UTC rather than as server-local time. */
const dateTimeSchema = z.iso
  .datetime({ offset: true, local: true })
  .transform((s) => Date.parse(/(?:[zZ]|[+-]\d{2}(?::?\d{2})?)$/.test(s) ? s : `${s}Z`));
const operatorTokenSchema = z.object({ id: z.number().int().positive(), expiresAt: dateTimeSchema });
const tokenSchema = z.object({ token: z.string().min(1) });
const revokeSchema = z.object({ token: z.string().min(1).optional() }).optional();
const idParamSchema = z.coerce.number().int().positive();

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
/** The operator record of the interface's design: `{ id, name }`. */
const operatorView = (o: ChatHubOperator) => ({ id: o.id, name: o.name });

/**
 * The chat hub API (interface 4.4) plus operator management, token revocation and the
 * client-management `POST /api/auth`. Mount at the root of `{chat_url}`.
 */
export function createChatHubRoutes(deps: ChatHubRoutesDeps): Hono<ChatHubEnv> {
  const { engine, tokens, clock } = deps;
  const storage = engine.storage;
  const app = new Hono<ChatHubEnv>();

  const requireToken =
    (type: 'company' | 'operator'): MiddlewareHandler<ChatHubEnv> =>
    async (c, next) => {
      // The interface allows `X-Authorization-Key` for company tokens only.
      const token = readToken(c, type === 'company');
      const claims = await authenticateToken(tokens, token, type);
      c.set('account', await accountOf(engine, claims));
      c.set('claims', claims);
      c.set('token', token);
      await next();
    };
  const company = requireToken('company');
  const operator = requireToken('operator');

  /** The operator of the caller's company, 404 when there is none, 403 when another company's. */
  const ownOperator = async (accountId: number, id: number): Promise<ChatHubOperator> => {
    const found = await storage.getOperator(id);
    if (!found) throw new SpillwayError('not_found', `operator ${id} does not exist`);
    if (found.accountId !== accountId) throw new SpillwayError('forbidden', `operator ${id} belongs to another company`);
    return found;
  };

  const login = async (body: z.infer<typeof credentialsSchema>): Promise<Account> => {
    const account = await engine.accounts.authenticatePassword(body.login, body.password);
    if (!account) throw new SpillwayError('unauthorized', 'wrong login or password');
    return account;
  };

  app.post('/api/company/get-token', async (c) => {
    const account = await login(await readBody(c, credentialsSchema));
    return c.json(await tokens.issueCompanyToken(account.id));
  });

  app.get('/api/company/organization', company, (c) => {
    const a = c.var.account;
    return c.json({ id: a.id, clientId: a.id, login: a.login, name: a.name, currency: a.currency, createdAt: iso(a.createdAt) });
  });

  app.post('/api/company/operators', company, async (c) => {
    const body = await readBody(c, operatorSchema);
    const created = await storage.createOperator({ accountId: c.var.account.id, name: body.name }, clock.now());
    return c.json(operatorView(created));
  });

  app.get('/api/company/operators', company, async (c) => {
    return c.json((await storage.listOperators(c.var.account.id)).map(operatorView));
  });

  app.delete('/api/company/operators/:id', company, async (c) => {
    const id = idParamSchema.safeParse(c.req.param('id'));
    if (!id.success) throw new SpillwayError('validation_failed', 'invalid operator id', [{ path: 'id', message: 'must be a positive integer' }]);
    await ownOperator(c.var.account.id, id.data);
    await storage.deleteOperator(c.var.account.id, id.data);
    return c.body(null, 204);
  });

  app.post('/api/company/revoke-token', company, async (c) => {
    const body = await readBody(c, revokeSchema);
    const target = body?.token ?? c.var.token;
    const result = await tokens.verify(target);
    const claims = result.ok ? result.claims : result.claims;
    if (!claims) throw new SpillwayError('bad_request', `token cannot be revoked: ${result.ok ? '' : result.message}`);
    if (claims.accountId !== c.var.account.id) throw new SpillwayError('forbidden', 'token belongs to another company');
    await tokens.revoke(claims);
    return c.json({ revoked: true, type: claims.type, jti: claims.jti });
  });

  app.post('/api/operator/get-token', company, async (c) => {
    const body = await readBody(c, operatorTokenSchema);
    const now = clock.now();
    if (body.expiresAt <= now) {
      throw new SpillwayError('validation_failed', 'expiresAt must be in the future', [{ path: 'expiresAt', message: 'is in the past' }]);
    }
    if (body.expiresAt > now + MAX_OPERATOR_TOKEN_MS) {
      throw new SpillwayError('validation_failed', 'expiresAt must be at most 24 hours in the future', [
        { path: 'expiresAt', message: 'is more than 24 hours in the future' },
      ]);
    }
    const op = await ownOperator(c.var.account.id, body.id);
    return c.json(await tokens.issueOperatorToken({ accountId: op.accountId, operatorId: op.id, expiresAt: body.expiresAt }));
  });

  app.post('/api/operator/validate-token', company, async (c) => {
    const body = await readBody(c, tokenSchema);
    const result = await tokens.verify(body.token, 'operator');
    const claims = result.ok ? result.claims : result.claims;
    // Another company's token is not described at all: validating must not leak who it is.
    const own = claims !== undefined && claims.accountId === c.var.account.id;
    const error = result.ok ? (own ? null : 'token belongs to another company') : result.message;
    return c.json({
      isValid: result.ok && own,
      operatorId: own ? claims.operatorId : null,
      clientId: own ? claims.accountId : null,
      expiresAt: own ? iso(claims.expiresAt) : null,
      error,
    });
  });

  app.get('/api/operator', operator, async (c) => {
    const claims = c.var.claims;
    const op = await ownOperator(claims.accountId, claims.operatorId ?? 0);
    return c.json({ id: op.id, name: op.name, clientId: op.accountId, expiresAt: iso(claims.expiresAt) });
  });

  app.post('/api/auth', async (c) => {
    const account = await login(await readBody(c, credentialsSchema));
    const { token, expiresAt } = await tokens.issueClientToken(account.id);
    return c.json({ token, tokenType: 'Bearer', expiresAt: iso(expiresAt), expiresIn: Math.round((expiresAt - clock.now()) / 1000) });
  });

  return app;
}
