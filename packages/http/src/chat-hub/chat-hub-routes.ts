import { Hono } from 'hono';
import type { Context, MiddlewareHandler } from 'hono';
import { SpillwayError } from '@spillway/core';
import type { Account, ChatHubOperator, Clock, Engine } from '@spillway/core';
import { z } from 'zod';
import type { Env } from '../env.ts';
import { defineRoute } from '../openapi.ts';
import { readJson, readOptionalJson } from '../read-json.ts';
import { parseOrThrow } from '../validate.ts';
import { rateLimit } from '../rate-limit.ts';
import { checkPassword } from '../auth.ts';
import { accountOf, authenticateToken, readToken } from './token-auth.ts';
import type { TokenClaims, TokenService } from './token-service.ts';
import {
  credentialsSchema,
  jwtString,
  operatorSchema,
  operatorTokenSchema,
  operatorView,
  organizationView,
  revokeSchema,
  tokenSchema,
  validateView,
} from './chat-hub-schemas.ts';
import { idParam } from '../routes/id-param.ts';
import { noQuerySchema, readListQuery } from '../routes/list-query.ts';

/** Dependencies of {@link createChatHubRoutes}. */
export interface ChatHubRoutesDeps {
  engine: Engine;
  tokens: TokenService;
  clock: Clock;
}

/** Hono variables of the chat hub routes: the app's, plus what the token middlewares set. */
export interface ChatHubEnv {
  Variables: Env['Variables'] & { claims: TokenClaims; token: string };
}

/** Operator tokens live at most this long (interface section 8.4). */
export const MAX_OPERATOR_TOKEN_MS = 24 * 60 * 60 * 1000;

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
const viewOf = (o: ChatHubOperator) => ({ id: o.id, name: o.name });

async function body<S extends z.ZodType>(c: Parameters<MiddlewareHandler>[0], schema: S, optional = false): Promise<z.output<S>> {
  return parseOrThrow(schema, optional ? await readOptionalJson(c) : await readJson(c), 'request body');
}

/**
 * The chat hub API (interface 4.4) plus operator management, token revocation and the
 * client-management `POST /api/auth`. Mount at the root of `{chat_url}` with `mountRoutes`.
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
  const company = [requireToken('company'), rateLimit<ChatHubEnv>('data')];
  const operator = [requireToken('operator'), rateLimit<ChatHubEnv>('data')];

  /** The operator of the caller's company, 404 when there is none, 403 when another company's. */
  const ownOperator = async (accountId: number, id: number): Promise<ChatHubOperator> => {
    const found = await storage.getOperator(id);
    if (!found) throw new SpillwayError('not_found', `operator ${id} does not exist`);
    if (found.accountId !== accountId) throw new SpillwayError('forbidden', `operator ${id} belongs to another company`);
    return found;
  };

  const login = async (c: Context<ChatHubEnv>, input: z.infer<typeof credentialsSchema>): Promise<Account> => {
    const account = await checkPassword(c as unknown as Context<Env>, engine, input.login, input.password);
    if (!account) throw new SpillwayError('unauthorized', 'wrong login or password');
    return account;
  };

  const tags = ['chat hub'];
  const unauthorized = { 401: { description: 'Missing, malformed, expired or forged token' } };
  const forbidden = { 403: { description: 'A token of the other type, or a revoked token' } };

  defineRoute(
    app,
    {
      method: 'post',
      path: '/api/company/get-token',
      operationId: 'getCompanyToken',
      summary: 'Company token from login and password',
      tags,
      auth: 'none',
      body: credentialsSchema,
      responses: { 200: { description: 'The company JWT as a JSON string', schema: jwtString }, 401: { description: 'Wrong credentials' } },
    },
    async (c) => {
      const account = await login(c, await body(c, credentialsSchema));
      return c.json(await tokens.issueCompanyToken(account.id));
    },
  );

  defineRoute(
    app,
    {
      method: 'get',
      path: '/api/company/organization',
      operationId: 'getCompanyOrganization',
      summary: 'The organization of the company token',
      tags,
      auth: 'company-token',
      responses: { 200: { description: 'Organization', schema: organizationView }, ...unauthorized, ...forbidden },
    },
    ...company,
    (c) => {
      const a = c.var.account;
      return c.json({ id: a.id, clientId: a.id, login: a.login, name: a.name, currency: a.currency, createdAt: iso(a.createdAt) });
    },
  );

  defineRoute(
    app,
    {
      method: 'post',
      path: '/api/company/operators',
      operationId: 'createOperator',
      summary: 'Create an operator',
      tags,
      auth: 'company-token',
      body: operatorSchema,
      responses: { 200: { description: 'The operator', schema: operatorView }, ...unauthorized, ...forbidden },
    },
    ...company,
    async (c) => {
      const input = await body(c, operatorSchema);
      return c.json(viewOf(await storage.createOperator({ accountId: c.var.account.id, name: input.name }, clock.now())));
    },
  );

  defineRoute(
    app,
    {
      method: 'get',
      path: '/api/company/operators',
      operationId: 'listOperators',
      summary: "List the company's operators",
      tags,
      auth: 'company-token',
      responses: { 200: { description: 'Operators', schema: z.array(operatorView) }, ...unauthorized, ...forbidden },
    },
    ...company,
    async (c) => {
      readListQuery(c, noQuerySchema);
      return c.json((await storage.listOperators(c.var.account.id)).map(viewOf));
    },
  );

  defineRoute(
    app,
    {
      method: 'delete',
      path: '/api/company/operators/:id',
      operationId: 'deleteOperator',
      summary: 'Remove an operator (its tokens stop working)',
      tags,
      auth: 'company-token',
      responses: { 204: { description: 'Removed' }, 404: { description: 'No such operator' }, ...unauthorized, ...forbidden },
    },
    ...company,
    async (c) => {
      const id = parseOrThrow(idParam, c.req.param('id'), 'operator id', 'id');
      await ownOperator(c.var.account.id, id);
      await storage.deleteOperator(c.var.account.id, id);
      return c.body(null, 204);
    },
  );

  defineRoute(
    app,
    {
      method: 'post',
      path: '/api/company/revoke-token',
      operationId: 'revokeToken',
      summary: "Revoke a token of the company (the caller's own company token when none is given)",
      tags,
      auth: 'company-token',
      body: revokeSchema,
      responses: {
        200: { description: 'Revoked', schema: z.object({ revoked: z.boolean(), type: z.string(), jti: z.string() }) },
        ...unauthorized,
        ...forbidden,
      },
    },
    ...company,
    async (c) => {
      const input = await body(c, revokeSchema, true);
      const result = await tokens.verify(input.token ?? c.var.token);
      const claims = result.claims;
      if (!claims) throw new SpillwayError('bad_request', `token cannot be revoked: ${result.ok ? '' : result.message}`);
      if (claims.accountId !== c.var.account.id) throw new SpillwayError('forbidden', 'token belongs to another company');
      await tokens.revoke(claims);
      // At once in this process, whatever the cache's revocation check interval.
      c.var.authCache?.clear();
      return c.json({ revoked: true, type: claims.type, jti: claims.jti });
    },
  );

  defineRoute(
    app,
    {
      method: 'post',
      path: '/api/operator/get-token',
      operationId: 'getOperatorToken',
      summary: 'Operator token valid until expiresAt (at most 24 hours ahead)',
      tags,
      auth: 'company-token',
      body: z.object({ id: z.number().int().positive(), expiresAt: z.string() }),
      responses: { 200: { description: 'The operator JWT as a JSON string', schema: jwtString }, ...unauthorized, ...forbidden },
    },
    ...company,
    async (c) => {
      const input = await body(c, operatorTokenSchema);
      const now = clock.now();
      if (input.expiresAt <= now) {
        throw new SpillwayError('validation_failed', 'expiresAt must be in the future', [{ path: 'expiresAt', message: 'is in the past' }]);
      }
      if (input.expiresAt > now + MAX_OPERATOR_TOKEN_MS) {
        throw new SpillwayError('validation_failed', 'expiresAt must be at most 24 hours in the future', [
          { path: 'expiresAt', message: 'is more than 24 hours in the future' },
        ]);
      }
      const op = await ownOperator(c.var.account.id, input.id);
      return c.json(await tokens.issueOperatorToken({ accountId: op.accountId, operatorId: op.id, expiresAt: input.expiresAt }));
    },
  );

  defineRoute(
    app,
    {
      method: 'post',
      path: '/api/operator/validate-token',
      operationId: 'validateOperatorToken',
      summary: 'Validate an operator token',
      tags,
      auth: 'company-token',
      body: tokenSchema,
      responses: { 200: { description: 'Validation result', schema: validateView }, ...unauthorized, ...forbidden },
    },
    ...company,
    async (c) => {
      const input = await body(c, tokenSchema);
      const result = await tokens.verify(input.token, 'operator');
      const claims = result.claims;
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
    },
  );

  defineRoute(
    app,
    {
      method: 'get',
      path: '/api/operator',
      operationId: 'getOperator',
      summary: 'The operator of the operator token',
      tags,
      auth: 'operator-token',
      responses: {
        200: {
          description: 'Operator',
          schema: z.object({ id: z.number().int(), name: z.string(), clientId: z.number().int(), expiresAt: z.string().nullable() }),
        },
        ...unauthorized,
        ...forbidden,
      },
    },
    ...operator,
    async (c) => {
      const claims = c.var.claims;
      const op = await ownOperator(claims.accountId, claims.operatorId ?? 0);
      return c.json({ id: op.id, name: op.name, clientId: op.accountId, expiresAt: iso(claims.expiresAt) });
    },
  );

  defineRoute(
    app,
    {
      method: 'post',
      path: '/api/auth',
      operationId: 'getClientToken',
      summary: 'Client-management token from login and password',
      tags: ['client management'],
      auth: 'none',
      body: credentialsSchema,
      responses: {
        200: {
          description: 'Client token',
          schema: z.object({
            token: z.string(),
            tokenType: z.literal('Bearer'),
            expiresAt: z.string().nullable(),
            expiresIn: z.number().int(),
          }),
        },
        401: { description: 'Wrong credentials' },
      },
    },
    async (c) => {
      const account = await login(c, await body(c, credentialsSchema));
      const { token, expiresAt } = await tokens.issueClientToken(account.id);
      return c.json({ token, tokenType: 'Bearer', expiresAt: iso(expiresAt), expiresIn: Math.round((expiresAt - clock.now()) / 1000) });
    },
  );

  return app;
}
