import { fromMicros } from '@spillway/core';
import { alphaNameApplicationSchema, applicationDecisionSchema, botApplicationSchema } from '@spillway/core/adapter';
import type { Hono } from 'hono';
import { z } from 'zod';
import { adminAuth } from '../admin-auth.ts';
import type { Env } from '../env.ts';
import { defineRoute } from '../openapi.ts';
import { readJson } from '../read-json.ts';
import { dateParam } from '../date-param.ts';
import { parseOrThrow } from '../validate.ts';
import { registerAdminAlphaNameRoutes } from './admin-alpha-names.ts';
import { registerAdminBotRoutes } from './admin-bots.ts';
import { alphaNameStatusSchema, applicationSchema, clientSendersSchema } from './client-schemas.ts';
import { applicationView, clientServicesOf } from './client-services.ts';
import { idParam } from './id-param.ts';
import { noQuerySchema, positiveIntParam, readListQuery } from './list-query.ts';

const DAY = 86_400_000;

const statusQuerySchema = z.object({
  dateFrom: dateParam.optional().meta({ description: 'Start of the period (inclusive); default 30 days before dateTo' }),
  dateTo: dateParam.optional().meta({ description: 'End of the period (exclusive); default now' }),
  alphaName: z.string().min(1).max(64).optional().meta({ description: 'Only this alpha-name' }),
});

const adminListQuerySchema = z.object({
  accountId: positiveIntParam().optional().meta({ description: 'Only the applications of this account' }),
  status: z
    .enum(['pending', 'approved', 'rejected', 'revoked'], { error: 'must be one of pending, approved, rejected, revoked' })
    .optional(),
  kind: z
    .enum(['alpha_name', 'chatapp_bot', 'messenger_bot'], { error: 'must be one of alpha_name, chatapp_bot, messenger_bot' })
    .optional(),
});

/** Options of {@link registerSenderRoutes}. */
export interface SenderRouteOptions {
  /** Key of the operator routes (`X-Admin-Key`); without it they answer 403. */
  adminKey?: string | undefined;
}

/**
 * Registers alpha-name and bot applications (`POST /api/AlphaName/sms/application`,
 * `POST /bots/application`), their state and statistics (`GET /api/AlphaName/sms/status`,
 * `GET /api/clientsenders`), the operator routes that decide them (`/admin/sender-applications`), and
 * the operator's view of an account's alpha-names, which may revoke one (`/admin/accounts/{accountId}/alpha-names`),
 * and the operator's revocation of an account's bot (`/admin/accounts/{accountId}/bots/revoke`).
 */
export function registerSenderRoutes(app: Hono<Env>, options: SenderRouteOptions = {}): void {
  defineRoute(
    app,
    {
      method: 'post',
      path: '/api/AlphaName/sms/application',
      operationId: 'applyForAlphaName',
      summary: 'Apply for an alpha-name (sender name)',
      description:
        'Creates a `pending` application (ExternalCreateAlphaNameApplicationDto). An operator approves it (the name is then ' +
        'approved on the channels applied for, and messages may use it as `from`) or rejects it with a reason. While an ' +
        'application of the name is pending or approved, another one answers 409.',
      tags: ['client'],
      auth: 'basic-or-key',
      body: alphaNameApplicationSchema,
      responses: {
        200: { description: 'The pending application', schema: applicationSchema },
        409: { description: 'The name is approved already or has a pending application' },
      },
    },
    async (c) => {
      const created = await clientServicesOf(c.var.engine).senders.applyForAlphaName(c.var.account.id, await readJson(c));
      return c.json(applicationView(created));
    },
  );

  defineRoute(
    app,
    {
      method: 'get',
      path: '/api/AlphaName/sms/status',
      operationId: 'getSenderApplications',
      summary: 'State of the alpha-name applications and SMS statistics per alpha-name',
      description:
        'Statistics of the SMS attempts of messages created in [dateFrom, dateTo): `sent` (handed to the SMS channel), ' +
        '`delivered`, `undeliverable` (failed or expired), `parts` and `cost` of the sent attempts. At most 366 days.',
      tags: ['client'],
      auth: 'basic-or-key',
      query: statusQuerySchema,
      responses: { 200: { description: 'Applications and statistics', schema: alphaNameStatusSchema } },
    },
    async (c) => {
      const query = readListQuery(c, statusQuerySchema);
      const account = c.var.account;
      const to = query.dateTo ?? c.var.engine.clock.now();
      const from = query.dateFrom ?? to - 30 * DAY;
      const { senders } = clientServicesOf(c.var.engine);
      const statistics = await senders.statistics(account.id, { from, to, ...(query.alphaName ? { alphaName: query.alphaName } : {}) });
      const applications = (await senders.list(account.id, { kind: 'alpha_name' })).filter(
        (a) => !query.alphaName || a.name === query.alphaName,
      );
      return c.json({
        dateFrom: new Date(from).toISOString(),
        dateTo: new Date(to).toISOString(),
        applications: applications.map(applicationView),
        statistics: statistics.map((s) => ({ ...s, cost: fromMicros(s.cost), currency: account.currency })),
      });
    },
  );

  defineRoute(
    app,
    {
      method: 'get',
      path: '/api/clientsenders',
      operationId: 'listSenders',
      summary: 'The senders of the account: alpha-names and bots with their state',
      tags: ['client'],
      auth: 'basic-or-key',
      responses: { 200: { description: 'Senders (ClientSenderResp)', schema: clientSendersSchema } },
    },
    async (c) => {
      readListQuery(c, noQuerySchema);
      const all = await clientServicesOf(c.var.engine).senders.senders(c.var.account.id);
      return c.json({ alphaNames: all.filter((s) => s.kind === 'alpha_name'), bots: all.filter((s) => s.kind !== 'alpha_name') });
    },
  );

  defineRoute(
    app,
    {
      method: 'post',
      path: '/bots/application',
      operationId: 'applyForBot',
      summary: 'Apply for a chat-app or messenger bot',
      description: 'Creates a `pending` application (NewExternalBotApplication), decided by an operator like alpha-name applications.',
      tags: ['client'],
      auth: 'basic-or-key',
      body: botApplicationSchema,
      responses: {
        200: { description: 'The pending application', schema: applicationSchema },
        409: { description: 'The bot has a pending or approved application' },
      },
    },
    async (c) => {
      const created = await clientServicesOf(c.var.engine).senders.applyForBot(c.var.account.id, await readJson(c));
      return c.json(applicationView(created));
    },
  );

  const admin = adminAuth(options.adminKey);

  defineRoute(
    app,
    {
      method: 'get',
      path: '/admin/sender-applications',
      operationId: 'listAllSenderApplications',
      summary: 'Operator: applications of every account',
      description:
        'Filtered by `accountId`, `status` and `kind`, all of them when given. Parameter names are read in any case; a parameter ' +
        'the route does not take is refused (400) rather than ignored, so that a misspelt filter never answers every account.',
      tags: ['admin'],
      auth: 'admin-key',
      query: adminListQuerySchema,
      responses: {
        200: { description: 'Applications, newest first', schema: z.array(applicationSchema.extend({ accountId: z.int() })) },
        403: { description: 'The admin API is disabled (no admin key configured)' },
      },
    },
    admin,
    async (c) => {
      const { accountId, ...filter } = readListQuery(c, adminListQuerySchema);
      const list = await clientServicesOf(c.var.engine).senders.list(accountId ?? null, filter);
      return c.json(list.map((a) => ({ ...applicationView(a), accountId: a.accountId })));
    },
  );

  defineRoute(
    app,
    {
      method: 'post',
      path: '/admin/sender-applications/:id/decision',
      operationId: 'decideSenderApplication',
      summary: 'Operator: approve or reject a pending application',
      description: 'Approving an alpha-name application approves the name on its channels for the applicant. A rejection needs a reason.',
      tags: ['admin'],
      auth: 'admin-key',
      params: { id: z.int().positive() },
      body: applicationDecisionSchema,
      responses: {
        200: { description: 'The decided application', schema: applicationSchema },
        403: { description: 'The admin API is disabled (no admin key configured)' },
        404: { description: 'No such application' },
        409: { description: 'The application is decided already' },
      },
    },
    admin,
    async (c) => {
      const id = parseOrThrow(idParam, c.req.param('id'), 'application id', 'id');
      return c.json(applicationView(await clientServicesOf(c.var.engine).senders.decide(id, await readJson(c))));
    },
  );

  registerAdminAlphaNameRoutes(app, admin);
  registerAdminBotRoutes(app, admin);
}
