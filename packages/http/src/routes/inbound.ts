import { createInboundService, inboundRequestSchema } from '@spillway/core/adapter';
import type { Hono } from 'hono';
import { z } from 'zod';
import type { Env } from '../env.ts';
import { defineRoute } from '../openapi.ts';
import { readJson } from '../read-json.ts';
import { parseOrThrow } from '../validate.ts';
import { getWebhookSecret } from '../webhooks/webhook-secret.ts';

/** Dependencies of {@link registerInboundRoutes}. */
export interface InboundRouteDeps {
  /**
   * Called after a webhook was queued (wake the delivery worker). Without it the worker finds
   * the delivery at its next poll.
   */
  onQueued?: () => void;
  /** Register the simulator's `/sandbox/inbound` routes. @default true */
  sandbox?: boolean;
}

const payloadShape = {
  idUuid: z.uuid(),
  alphaName: z.string(),
  phoneNumber: z.string().meta({ description: 'Digits only' }),
  text: z.string(),
  dt: z.iso.datetime(),
};

const inboundReceiptSchema = z.object({
  ...payloadShape,
  delivery: z.enum(['queued', 'no_callback']).meta({ description: 'Whether a webhook to the callback URL was queued' }),
});

const inboundRecordSchema = z.object({
  ...payloadShape,
  delivery: z
    .object({
      url: z.string(),
      status: z.enum(['pending', 'delivered', 'failed']),
      attempts: z.int().nonnegative(),
      lastError: z.string().nullable(),
      nextAttemptAt: z.iso.datetime().nullable(),
      deliveredAt: z.iso.datetime().nullable(),
    })
    .nullable(),
});

const webhookSecretSchema = z.object({
  secret: z.string().meta({ description: 'Standard Webhooks signing secret (`whsec_...`) of every callback of the account' }),
});

const idUuidParam = z.uuid({ error: 'must be a UUID' });

/**
 * Registers the simulator's `POST /sandbox/inbound` (inject an incoming chat-app message),
 * `GET /sandbox/inbound/:idUuid` (it and its webhook delivery) and
 * `GET /api/AlphaName/callback/secret` (the secret that signs the callbacks).
 */
export function registerInboundRoutes(app: Hono<Env>, deps: InboundRouteDeps = {}): void {
  const serviceOf = (engine: Env['Variables']['engine']) =>
    createInboundService({ storage: engine.storage, clock: engine.clock, ...(deps.onQueued ? { onQueued: deps.onQueued } : {}) });

  if (deps.sandbox !== false) registerSandboxRoutes(app, serviceOf);
  registerSecretRoute(app);
}

function registerSandboxRoutes(
  app: Hono<Env>,
  serviceOf: (engine: Env['Variables']['engine']) => ReturnType<typeof createInboundService>,
): void {
  defineRoute(
    app,
    {
      method: 'post',
      path: '/sandbox/inbound',
      operationId: 'injectInboundMessage',
      summary: 'Simulator: inject an incoming chat-app message',
      description:
        'Records what `phoneNumber` wrote to one of the account alpha-names (which opens a 24-hour chat-app session) and, when the ' +
        'alpha-name has a callback URL, queues its webhook: a signed POST (Standard Webhooks headers `webhook-id` = idUuid, ' +
        '`webhook-timestamp`, `webhook-signature`) with the body `{ idUuid, alphaName, phoneNumber, text, dt }`, retried with backoff.',
      tags: ['sandbox'],
      auth: 'basic-or-key',
      body: inboundRequestSchema,
      responses: {
        200: { description: 'The recorded message', schema: inboundReceiptSchema },
        404: { description: 'The account has no such alpha-name' },
      },
    },
    async (c) => c.json(await serviceOf(c.var.engine).receive(c.var.account.id, await readJson(c))),
  );

  defineRoute(
    app,
    {
      method: 'get',
      path: '/sandbox/inbound/:idUuid',
      operationId: 'getInboundMessage',
      summary: 'Simulator: an incoming message and the state of its webhook delivery',
      tags: ['sandbox'],
      auth: 'basic-or-key',
      params: { idUuid: z.uuid() },
      responses: {
        200: { description: 'The message with its delivery (null without callback)', schema: inboundRecordSchema },
        404: { description: 'No such message on this account' },
      },
    },
    async (c) => {
      const id = parseOrThrow(idUuidParam, c.req.param('idUuid'), 'idUuid', 'idUuid');
      return c.json(await serviceOf(c.var.engine).get(c.var.account.id, id));
    },
  );
}

function registerSecretRoute(app: Hono<Env>): void {
  defineRoute(
    app,
    {
      method: 'get',
      path: '/api/AlphaName/callback/secret',
      operationId: 'getCallbackSecret',
      summary: 'The secret that signs the incoming-message callbacks of the account',
      description:
        'Created on first use; verify callbacks with any Standard Webhooks library (`new Webhook(secret).verify(body, headers)`).',
      tags: ['client'],
      auth: 'basic-or-key',
      responses: { 200: { description: 'The signing secret', schema: webhookSecretSchema } },
    },
    async (c) => c.json({ secret: await getWebhookSecret(c.var.engine.storage, c.var.account.id) }),
  );
}
