import { isSpillwayError } from '@spillway/core';
import { createClientDataService, phoneDataObjectSchema, sendEmailSchema, userBonusBulkSchema } from '@spillway/core/adapter';
import type { EmailRecord, Engine } from '@spillway/core';
import type { ClientDataService, EmailTransport } from '@spillway/core/adapter';
import type { Hono } from 'hono';
import { z } from 'zod';
import type { Env } from '../env.ts';
import { defineRoute } from '../openapi.ts';
import { readJson } from '../read-json.ts';
import { parseOrThrow } from '../validate.ts';
import { clientStorageOf } from './client-services.ts';
import { idParam } from './id-param.ts';

/** Options of {@link registerClientDataRoutes} and the bot routes. */
export interface ClientDataRouteOptions {
  /** Transport of `POST /api/email/send`; without it the route answers 501 `not_configured`. */
  email?: EmailTransport | undefined;
}

const services = new WeakMap<object, WeakMap<Engine, ClientDataService>>();

/** The data service over the engine's storage with the route options' transport. */
export function dataServiceOf(engine: Engine, options: ClientDataRouteOptions): ClientDataService {
  let byEngine = services.get(options);
  if (!byEngine) services.set(options, (byEngine = new WeakMap()));
  let service = byEngine.get(engine);
  if (!service)
    byEngine.set(
      engine,
      (service = createClientDataService({ storage: clientStorageOf(engine), clock: engine.clock, email: options.email })),
    );
  return service;
}

/** Seconds a caller waits before sending again an e-mail the mail server could not take. */
const EMAIL_RETRY_AFTER_SECONDS = 30;

/** What the operator's log says of an error of the mail server (the caller is told none of it). */
function smtpErrorFields(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { error: String(error) };
  const { code, command, responseCode, response } = error as Error & Record<string, unknown>;
  return { error: { name: error.name, message: error.message, code, command, responseCode, response } };
}

const phoneDataSchema = z.object({
  phoneNumber: z.string(),
  data: z.record(z.string(), z.unknown()),
  updatedAt: z.iso.datetime(),
});

const emailSchema = z.object({
  id: z.int(),
  from: z.string(),
  to: z.array(z.string()),
  subject: z.string(),
  status: z.enum(['pending', 'sent', 'failed']),
  messageId: z.string().nullable().meta({ description: 'The SMTP server’s Message-ID' }),
  error: z.string().nullable(),
  createdAt: z.iso.datetime(),
  sentAt: z.iso.datetime().nullable(),
});

const emailView = (e: EmailRecord) => ({
  id: e.id,
  from: e.from,
  to: e.to,
  subject: e.subject,
  status: e.status,
  messageId: e.messageId,
  error: e.error,
  createdAt: new Date(e.createdAt).toISOString(),
  sentAt: e.sentAt === null ? null : new Date(e.sentAt).toISOString(),
});

/** Registers per-phone data (`/api/external-data/user-bonuses`) and e-mail (`/api/email/send`). */
export function registerClientDataRoutes(app: Hono<Env>, options: ClientDataRouteOptions = {}): void {
  defineRoute(
    app,
    {
      method: 'post',
      path: '/api/external-data/user-bonuses',
      operationId: 'storePhoneDataBulk',
      summary: 'Store data per phone number, in bulk (array of UserBonusDataDto)',
      description:
        'Each item is `phoneNumber` plus any members (`bonus`, `level`, ...); they replace the number’s earlier data, all in one ' +
        'transaction (a bad item rejects the whole request). Members are variables of the number’s messages: `%bonus%`.',
      tags: ['client'],
      auth: 'basic-or-key',
      body: userBonusBulkSchema,
      responses: { 200: { description: 'How many numbers were stored', schema: z.object({ stored: z.int() }) } },
    },
    async (c) => c.json({ stored: await dataServiceOf(c.var.engine, options).putPhoneDataBulk(c.var.account.id, await readJson(c)) }),
  );

  defineRoute(
    app,
    {
      method: 'post',
      path: '/api/external-data/user-bonuses/:phoneNumber',
      operationId: 'storePhoneData',
      summary: 'Store the data of one phone number (any JSON object)',
      tags: ['client'],
      auth: 'basic-or-key',
      params: { phoneNumber: z.string() },
      body: phoneDataObjectSchema,
      responses: { 200: { description: 'The stored data', schema: phoneDataSchema } },
    },
    async (c) => {
      const saved = await dataServiceOf(c.var.engine, options).putPhoneData(
        c.var.account.id,
        c.req.param('phoneNumber') ?? '',
        await readJson(c),
      );
      return c.json({ phoneNumber: saved.phoneNumber, data: saved.data, updatedAt: new Date(saved.updatedAt).toISOString() });
    },
  );

  defineRoute(
    app,
    {
      method: 'get',
      path: '/api/external-data/user-bonuses/:phoneNumber',
      operationId: 'getPhoneData',
      summary: 'The data of one phone number',
      tags: ['client'],
      auth: 'basic-or-key',
      params: { phoneNumber: z.string() },
      responses: { 200: { description: 'The stored data', schema: phoneDataSchema }, 404: { description: 'No data for the number' } },
    },
    async (c) => {
      const found = await dataServiceOf(c.var.engine, options).getPhoneData(c.var.account.id, c.req.param('phoneNumber') ?? '');
      return c.json({ phoneNumber: found.phoneNumber, data: found.data, updatedAt: new Date(found.updatedAt).toISOString() });
    },
  );

  defineRoute(
    app,
    {
      method: 'post',
      path: '/api/email/send',
      operationId: 'sendEmail',
      summary: 'Send an e-mail through the configured SMTP server (SendEmailRequest)',
      description:
        'Records the e-mail, hands it to SMTP (`SPILLWAY_SMTP_URL`, sender `SPILLWAY_SMTP_FROM`) and answers its record: `sent` with ' +
        'the server’s Message-ID, or `failed` with the server’s answer when it refused the e-mail for good (a 5xx answer to its ' +
        'sender, recipients or content). When the mail server cannot take it now (unreachable, not answering, a 4xx answer), ' +
        'the answer is 503 `upstream_unavailable` with `Retry-After`, naming the record, which is `failed`; nothing of the ' +
        'server’s address is told, the operator’s log has the detail. Read a record again at `GET /api/email/{id}`.',
      tags: ['client'],
      auth: 'basic-or-key',
      rateLimit: 'messaging',
      body: sendEmailSchema,
      responses: {
        200: { description: 'The e-mail record', schema: emailSchema },
        501: { description: 'E-mail is not configured on this server (`not_configured`)' },
        503: {
          description:
            'The mail server could not take the e-mail now (`upstream_unavailable`; its record is `failed`), or the database was too ' +
            'busy to take the request: retry after `Retry-After` seconds',
        },
      },
    },
    async (c) => {
      const body = await readJson(c);
      try {
        return c.json(emailView(await dataServiceOf(c.var.engine, options).sendEmail(c.var.account.id, body)));
      } catch (error) {
        if (isSpillwayError(error) && error.code === 'upstream_unavailable') {
          // The answer's message names the record: the operator finds the caller's e-mail by it.
          c.var.logger.warn('e-mail not sent: the mail server could not take it', {
            accountId: c.var.account.id,
            answer: error.message,
            ...smtpErrorFields(error.cause),
          });
          c.header('Retry-After', String(EMAIL_RETRY_AFTER_SECONDS));
        }
        throw error;
      }
    },
  );

  defineRoute(
    app,
    {
      method: 'get',
      path: '/api/email/:id',
      operationId: 'getEmail',
      summary: 'An e-mail record',
      tags: ['client'],
      auth: 'basic-or-key',
      params: { id: z.int().positive() },
      responses: { 200: { description: 'The e-mail record', schema: emailSchema }, 404: { description: 'No such e-mail on this account' } },
    },
    async (c) => {
      const id = parseOrThrow(idParam, c.req.param('id'), 'e-mail id', 'id');
      return c.json(emailView(await dataServiceOf(c.var.engine, options).getEmail(c.var.account.id, id)));
    },
  );
}
