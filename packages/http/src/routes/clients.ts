import {
  clientTransferSchema,
  idempotencyKeySchema,
  organizationRequestSchema,
  provisionClientSchema,
  referralClientSchema,
} from '@spillway/core/adapter';
import type { Account, ClientLink, Organization } from '@spillway/core';
import type { Hono } from 'hono';
import { z } from 'zod';
import type { Env } from '../env.ts';
import { defineRoute } from '../openapi.ts';
import { readJson } from '../read-json.ts';
import { parseOrThrow } from '../validate.ts';
import {
  clientSchema,
  clientTransferResultSchema,
  organizationNameSchema,
  organizationSchema,
  provisionedClientSchema,
} from './client-schemas.ts';
import { clientServicesOf } from './client-services.ts';
import { idParam } from './id-param.ts';

const referralIdParam = z.uuid({ error: 'must be a UUID' });

const pageQuerySchema = z.object({
  page: z.coerce.number().int().min(1).default(1).meta({ description: '1-based' }),
  pageSize: z.coerce.number().int().min(1).max(1000).default(50),
});

const clientsQuerySchema = z.object({ kind: z.enum(['sub', 'referral']).optional() });

const transferHeadersSchema = z.object({ 'Idempotency-Key': idempotencyKeySchema.optional() });

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
 * a parent and its sub-client (`POST /api/client/clients/{clientId}/transfer`) and organizations
 * (`POST /api/client/organization`, `POST /organizations`, `GET /organizations`,
 * `DELETE /organizations/{id}`).
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
        'approved for the sub-client on the same channels. The sub-client authenticates as itself and sees only its own data.',
      tags: ['client'],
      auth: 'basic-or-key',
      body: provisionClientSchema,
      responses: {
        200: { description: 'The new sub-client (CreateExternalClientDTO answered)', schema: provisionedClientSchema },
        402: { description: 'The balance does not cover the opening balance' },
        409: { description: 'The login is taken' },
      },
    },
    async (c) => {
      const made = await clientServicesOf(c.var.engine).clients.provision(c.var.account.id, await readJson(c));
      return c.json({
        clientId: made.account.id,
        login: made.account.login,
        name: made.account.name,
        currency: made.account.currency,
        apiKey: made.apiKey,
        balance: made.balance,
        alphaNames: made.alphaNames.map((a) => ({ alphaName: a.name, channels: a.channels })),
        parentId: made.link.parentId,
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
      const query = parseOrThrow(clientsQuerySchema, { kind: c.req.query('kind') || undefined }, 'query');
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
      headers: transferHeadersSchema,
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
      const { 'Idempotency-Key': idempotencyKey } = parseOrThrow(
        transferHeadersSchema,
        { 'Idempotency-Key': c.req.header('idempotency-key') },
        'Idempotency-Key header',
      );
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
      description: 'The total count is in the `X-Total-Count` header.',
      tags: ['client'],
      auth: 'basic-or-key',
      query: pageQuerySchema,
      responses: { 200: { description: 'OrganizationNameSync items', schema: z.array(organizationNameSchema) } },
    },
    async (c) => {
      const page = parseOrThrow(
        pageQuerySchema,
        // The wallet's spelling (the interface's Page, PageSize) too, rather than ignored.
        {
          page: c.req.query('page') || c.req.query('Page') || undefined,
          pageSize: c.req.query('pageSize') || c.req.query('PageSize') || undefined,
        },
        'query',
      );
      const { items, total } = await clientServicesOf(c.var.engine).clients.listOrganizations(c.var.account.id, page);
      c.header('X-Total-Count', String(total));
      return c.json(items.map((o) => ({ id: o.id, name: o.name, taxId: o.taxId })));
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
