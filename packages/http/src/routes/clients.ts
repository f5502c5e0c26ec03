import {
  clientKeyRequestSchema,
  clientTransferSchema,
  idempotencyKeySchema,
  organizationRequestSchema,
  provisionClientSchema,
  referralClientSchema,
} from '@spillway/core/adapter';
import type { Account, ApiKey, ClientLink, Organization } from '@spillway/core';
import type { Hono } from 'hono';
import { z } from 'zod';
import type { Env } from '../env.ts';
import { defineRoute } from '../openapi.ts';
import { readJson, readOptionalJson } from '../read-json.ts';
import { parseOrThrow } from '../validate.ts';
import {
  clientKeySchema,
  clientSchema,
  clientTransferResultSchema,
  issuedClientKeySchema,
  organizationNameSchema,
  organizationSchema,
  provisionedClientSchema,
} from './client-schemas.ts';
import { clientServicesOf } from './client-services.ts';
import { idParam } from './id-param.ts';
import { noQuerySchema, pageParam, pageSizeParam, readListQuery } from './list-query.ts';

const referralIdParam = z.uuid({ error: 'must be a UUID' });

const pageQuerySchema = z.object({ page: pageParam, pageSize: pageSizeParam });

const clientsQuerySchema = z.object({ kind: z.enum(['sub', 'referral']).optional() });

const idempotencyHeadersSchema = z.object({ 'Idempotency-Key': idempotencyKeySchema.optional() });

/** The `Idempotency-Key` header of a request, or undefined; a 400 at the header for a bad one. */
const idempotencyKeyOf = (header: string | undefined) =>
  parseOrThrow(idempotencyHeadersSchema, { 'Idempotency-Key': header }, 'Idempotency-Key header')['Idempotency-Key'];

function clientKeyView(k: ApiKey) {
  return { keyId: k.id, label: k.label, prefix: k.prefix, createdAt: new Date(k.createdAt).toISOString() };
}

function organizationView(o: Organization) {
  return {
    id: o.id,
    name: o.name,
    taxId: o.taxId,
    address: o.address,
    email: o.email,
    phone: o.phone,
    createdAt: new Date(o.createdAt).toISOString(),
  };
}

function clientView(account: Account, link: ClientLink, balance: number) {
  return {
    clientId: account.id,
    login: account.login,
    name: account.name,
    currency: account.currency,
    kind: link.kind,
    referralId: link.referralId,
    balance,
    createdAt: new Date(link.createdAt).toISOString(),
  };
}

/**
 * Registers sub-clients (`POST /api/client/provision`), referred clients
 * (`POST /api/client/{referralId}`), the linked clients (`GET /api/client/clients`), money between
 * a parent and its sub-client (`POST /api/client/clients/{clientId}/transfer`), the sub-client's
 * API keys (`/api/client/clients/{clientId}/keys`) and organizations
 * (`POST /api/client/organization`, `POST /organizations`, `GET /organizations`,
 * `GET /organizations/{id}`, `DELETE /organizations/{id}`).
 */
export function registerClientRoutes(app: Hono<Env>): void {
  defineRoute(
    app,
    {
      method: 'post',
      path: '/api/client/provision',
      operationId: 'provisionClient',
      summary: 'Create a sub-client account',
      description:
        'Creates an account with its own login, password and API key (answered once), linked to the caller. `balance` moves ' +
        'from the caller’s wallet (402 when it does not cover it); `alphaNames` must be approved names of the caller and are ' +
        'approved for the sub-client on the same channels. The sub-client authenticates as itself and sees only its own data. ' +
        'Send an `Idempotency-Key` to make the request safe to retry: the key is recorded with the client, in the transaction ' +
        'that creates it, and a request with the same key (of the same caller) and the same body answers that client again, ' +
        'with `Idempotent-Replayed: true`, creating nothing and moving no money; with another login, password, name, balance ' +
        'or alpha-names it answers 409 naming what differs. The API key is shown once and never kept: a replayed answer has ' +
        '`apiKey` null (and a `message` saying so); issue a new key with `POST /api/client/clients/{clientId}/keys` and ' +
        'revoke the lost one (`keyId`). A key is kept for 7 days. A refused request (400, 402, 409) records nothing: its key ' +
        'may be sent again.',
      tags: ['client'],
      auth: 'basic-or-key',
      headers: idempotencyHeadersSchema,
      body: provisionClientSchema,
      responses: {
        200: {
          description: 'The new sub-client (CreateExternalClientDTO answered); for a replayed key, that client with `apiKey` null',
          schema: provisionedClientSchema,
        },
        402: { description: 'The balance does not cover the opening balance' },
        409: { description: 'The login is taken, or the `Idempotency-Key` was used for another client (`details` name what differs)' },
      },
    },
    async (c) => {
      const idempotencyKey = idempotencyKeyOf(c.req.header('idempotency-key'));
      const made = await clientServicesOf(c.var.engine).clients.provision(c.var.account.id, await readJson(c), { idempotencyKey });
      if (made.replayed) c.header('Idempotent-Replayed', 'true');
      return c.json({
        clientId: made.account.id,
        login: made.account.login,
        name: made.account.name,
        currency: made.account.currency,
        apiKey: made.apiKey,
        keyId: made.keyId,
        balance: made.balance,
        alphaNames: made.alphaNames.map((a) => ({ alphaName: a.name, channels: a.channels })),
        parentId: made.link.parentId,
        ...(made.replayed
          ? {
              message:
                'The API key was shown once, in the first answer, and is not kept: issue a new one with ' +
                `POST /api/client/clients/${made.account.id}/keys` +
                (made.keyId === null
                  ? '.'
                  : ` (and revoke the lost one with DELETE /api/client/clients/${made.account.id}/keys/${made.keyId}).`),
            }
          : {}),
      });
    },
  );

  // Two paths of the interface create the same record: one route definition serves both.
  for (const path of ['/api/client/organization', '/organizations'] as const) {
    defineRoute(
      app,
      {
        method: 'post',
        path,
        operationId: path === '/organizations' ? 'createOrganization' : 'addClientOrganization',
        summary: 'Add an organization of the account',
        ...(path === '/api/client/organization'
          ? { description: 'The same record as `POST /organizations`, answered whole (OrganizationDataDTO).' }
          : {}),
        tags: ['client'],
        auth: 'basic-or-key',
        body: organizationRequestSchema,
        responses: {
          200: { description: 'The organization', schema: organizationSchema },
          409: { description: 'The account has an organization with this taxId' },
        },
      },
      async (c) =>
        c.json(organizationView(await clientServicesOf(c.var.engine).clients.addOrganization(c.var.account.id, await readJson(c)))),
    );
  }

  defineRoute(
    app,
    {
      method: 'get',
      path: '/api/client/clients',
      operationId: 'listClients',
      summary: 'The clients linked to the account: sub-clients and referred clients',
      tags: ['client'],
      auth: 'basic-or-key',
      query: clientsQuerySchema,
      responses: { 200: { description: 'Linked clients with their balance', schema: z.array(clientSchema) } },
    },
    async (c) => {
      const query = readListQuery(c, clientsQuerySchema);
      const list = await clientServicesOf(c.var.engine).clients.listClients(c.var.account.id, query.kind);
      return c.json(list.map((l) => clientView(l.account, l.link, l.balance)));
    },
  );

  defineRoute(
    app,
    {
      method: 'post',
      path: '/api/client/clients/:clientId/transfer',
      operationId: 'transferClientBalance',
      summary: 'Move money to a sub-client, or take unspent money back',
      description:
        '`direction` `to_client` (default) moves `amount` from the caller’s wallet to its sub-client’s; `from_client` takes it ' +
        'back from the sub-client’s. Both wallet rows are written in one transaction (an `adjustment` on the paying wallet, a ' +
        '`topup` on the other, each naming the other account), so the wallet history of both shows the move. Only the ' +
        'caller’s own sub-clients (provisioned by it): referred clients and sub-clients of sub-clients answer 404. ' +
        'Send an `Idempotency-Key` to make the request safe to retry: the key is recorded with the move, in its transaction, ' +
        'and a request with the same key (of the same caller) and the same transfer answers that first move again, with ' +
        '`Idempotent-Replayed: true`, without moving money; with another sub-client, amount or direction it answers 409. ' +
        'A key is kept for 7 days; after that the same key moves money again. ' +
        'A refused request (400, 402, 404) records nothing: its key may be sent again.',
      tags: ['client'],
      auth: 'basic-or-key',
      params: { clientId: z.int().positive() },
      headers: idempotencyHeadersSchema,
      body: clientTransferSchema,
      bodyExample: { amount: 25.5, direction: 'to_client' },
      responses: {
        200: { description: 'The balances after the move (the first move’s, for a replayed key)', schema: clientTransferResultSchema },
        402: { description: 'The paying wallet (the caller’s, or the sub-client’s for `from_client`) does not cover the amount' },
        404: { description: 'The account is not a sub-client of the caller' },
        409: {
          description:
            'The `Idempotency-Key` was used for another transfer (`details` name what differs), or the two wallets count in different currencies',
        },
      },
    },
    async (c) => {
      const clientId = parseOrThrow(idParam, c.req.param('clientId'), 'clientId', 'clientId');
      const idempotencyKey = idempotencyKeyOf(c.req.header('idempotency-key'));
      const account = c.var.account;
      const moved = await clientServicesOf(c.var.engine).clients.transfer(account.id, clientId, await readJson(c), { idempotencyKey });
      if (moved.replayed) c.header('Idempotent-Replayed', 'true');
      return c.json({
        clientId: moved.client.id,
        direction: moved.direction,
        amount: moved.amount,
        currency: account.currency,
        balance: moved.balance,
        clientBalance: moved.clientBalance,
      });
    },
  );

  const keysDescription =
    'Only the caller’s own sub-clients (provisioned by it): referred clients and sub-clients of sub-clients answer 404.';

  defineRoute(
    app,
    {
      method: 'post',
      path: '/api/client/clients/:clientId/keys',
      operationId: 'issueClientKey',
      summary: 'Issue a new API key of a sub-client',
      description:
        'A new API key of the sub-client, answered once (it is never kept in clear): for a key that was lost, such as the ' +
        'one a provisioning answered. Its other keys keep working until revoked. ' +
        keysDescription,
      tags: ['client'],
      auth: 'basic-or-key',
      params: { clientId: z.int().positive() },
      body: clientKeyRequestSchema,
      bodyExample: { label: 'pos-terminal-3' },
      responses: {
        200: { description: 'The new key, shown once', schema: issuedClientKeySchema },
        404: { description: 'The account is not a sub-client of the caller' },
      },
    },
    async (c) => {
      const clientId = parseOrThrow(idParam, c.req.param('clientId'), 'clientId', 'clientId');
      const issued = await clientServicesOf(c.var.engine).clients.issueClientKey(c.var.account.id, clientId, await readOptionalJson(c));
      return c.json({ clientId: issued.client.id, ...clientKeyView(issued.apiKey), apiKey: issued.key });
    },
  );

  defineRoute(
    app,
    {
      method: 'get',
      path: '/api/client/clients/:clientId/keys',
      operationId: 'listClientKeys',
      summary: 'The API keys of a sub-client that work',
      description: 'Oldest first, without the keys themselves (their first characters in `prefix`). ' + keysDescription,
      tags: ['client'],
      auth: 'basic-or-key',
      params: { clientId: z.int().positive() },
      responses: {
        200: { description: 'The keys not revoked', schema: z.array(clientKeySchema) },
        404: { description: 'The account is not a sub-client of the caller' },
      },
    },
    async (c) => {
      const clientId = parseOrThrow(idParam, c.req.param('clientId'), 'clientId', 'clientId');
      readListQuery(c, noQuerySchema);
      const keys = await clientServicesOf(c.var.engine).clients.listClientKeys(c.var.account.id, clientId);
      return c.json(keys.map(clientKeyView));
    },
  );

  defineRoute(
    app,
    {
      method: 'delete',
      path: '/api/client/clients/:clientId/keys/:keyId',
      operationId: 'revokeClientKey',
      summary: 'Revoke an API key of a sub-client',
      description: 'The key is refused (401) from the next request on, by every process of the server. ' + keysDescription,
      tags: ['client'],
      auth: 'basic-or-key',
      params: { clientId: z.int().positive(), keyId: z.int().positive() },
      responses: {
        204: { description: 'Revoked' },
        404: { description: 'The account is not a sub-client of the caller, or the key is not one of its keys that work' },
      },
    },
    async (c) => {
      const clientId = parseOrThrow(idParam, c.req.param('clientId'), 'clientId', 'clientId');
      const keyId = parseOrThrow(idParam, c.req.param('keyId'), 'keyId', 'keyId');
      await clientServicesOf(c.var.engine).clients.revokeClientKey(c.var.account.id, clientId, keyId);
      return c.body(null, 204);
    },
  );

  defineRoute(
    app,
    {
      method: 'post',
      path: '/api/client/:referralId',
      operationId: 'registerReferredClient',
      summary: 'Register a client referred by the caller',
      description:
        'Creates an independent account (own wallet, no shared alpha-names) recorded as referred by the caller under ' +
        '`referralId`. Sending the same referralId and login again answers the same client; another login answers 409. ' +
        'Answers the new client id as a JSON string.',
      tags: ['client'],
      auth: 'basic-or-key',
      params: { referralId: z.uuid() },
      body: referralClientSchema,
      responses: {
        200: { description: 'The client id', schema: z.string().meta({ examples: ['42'] }) },
        409: { description: 'The login is taken, or the referral id names another client' },
      },
    },
    async (c) => {
      const referralId = parseOrThrow(referralIdParam, c.req.param('referralId'), 'referralId', 'referralId').toLowerCase();
      const { account } = await clientServicesOf(c.var.engine).clients.registerReferral(c.var.account.id, referralId, await readJson(c));
      return c.json(String(account.id));
    },
  );

  defineRoute(
    app,
    {
      method: 'get',
      path: '/organizations',
      operationId: 'listOrganizations',
      summary: 'The organizations of the account, one page, oldest first',
      description:
        'The total count is in the `X-Total-Count` header. Parameter names are read in any case (`page` or the wallet’s ' +
        '`Page`); a parameter the route does not take, or one given twice with different values, is refused (400).',
      tags: ['client'],
      auth: 'basic-or-key',
      query: pageQuerySchema,
      responses: { 200: { description: 'OrganizationNameSync items', schema: z.array(organizationNameSchema) } },
    },
    async (c) => {
      const page = readListQuery(c, pageQuerySchema);
      const { items, total } = await clientServicesOf(c.var.engine).clients.listOrganizations(c.var.account.id, page);
      c.header('X-Total-Count', String(total));
      return c.json(items.map((o) => ({ id: o.id, name: o.name, taxId: o.taxId })));
    },
  );

  defineRoute(
    app,
    {
      method: 'get',
      path: '/organizations/:id',
      operationId: 'getOrganization',
      summary: 'One organization of the account, whole (OrganizationDataDTO)',
      description: 'The record `POST /organizations` answered; the list has only `id`, `name` and `taxId` of each.',
      tags: ['client'],
      auth: 'basic-or-key',
      params: { id: z.int().positive() },
      responses: {
        200: { description: 'The organization', schema: organizationSchema },
        404: { description: 'The account has no organization with this id' },
      },
    },
    async (c) => {
      const id = parseOrThrow(idParam, c.req.param('id'), 'organization id', 'id');
      return c.json(organizationView(await clientServicesOf(c.var.engine).clients.getOrganization(c.var.account.id, id)));
    },
  );

  defineRoute(
    app,
    {
      method: 'delete',
      path: '/organizations/:id',
      operationId: 'deleteOrganization',
      summary: 'Delete an organization of the account',
      description:
        'Nothing else refers to an organization (a chat hub company token is the account’s, not an organization’s): it goes ' +
        'alone, and its taxId may be used again.',
      tags: ['client'],
      auth: 'basic-or-key',
      params: { id: z.int().positive() },
      responses: { 204: { description: 'Deleted' }, 404: { description: 'The account has no organization with this id' } },
    },
    async (c) => {
      const id = parseOrThrow(idParam, c.req.param('id'), 'organization id', 'id');
      await clientServicesOf(c.var.engine).clients.deleteOrganization(c.var.account.id, id);
      return c.body(null, 204);
    },
  );
}
