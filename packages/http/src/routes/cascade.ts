import { SpillwayError } from '@spillway/core';
import type { CascadeEndpoint, CascadeSendOptions } from '@spillway/core';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { Env } from '../env.ts';
import { defineRoute } from '../openapi.ts';
import { cascadeRequestExample, cascadeResponseExample } from '../openapi-examples.ts';
import { readJson } from '../read-json.ts';
import { parseOrThrow } from '../validate.ts';
import {
  broadcastRequestSchema,
  broadcastResponseSchema,
  cascadeRequestSchema,
  cascadeResponseSchema,
  cascadeStatusSchema,
} from './cascade-schemas.ts';
import { registerCascadeRouteApi } from './cascade-routes-api.ts';
import { registerVariableRoutes } from './variables.ts';
// Raw JSON bodies: the engine validates them at run time; its parameter types are for embedders.
import type { BroadcastInput, CascadeSendInput } from '@spillway/core';

const BASE = '/api/CascadeMessage';
// Any one segment matches, so a malformed GUID is a 400 (not a 404); the fixed names of the
// cascade API are not referral GUIDs and stay 404 under these paths.
const REFERRAL = ':referralGuid{[^/]+}';
const FIXED_NAMES: ReadonlySet<string> = new Set(['send_message', 'send_message_async', 'broadcast', 'status_guid', 'status_id']);
/** A referral GUID or a cascade message's GUID in a path: a 400 when it is not a UUID. */
const uuidParam = z.uuid({ error: 'must be a UUID' });

/** Bot credentials of interface 5.2, passed to the engine (which stores them with the message). */
function credentialsOf(c: Context<Env>): CascadeSendOptions['credentials'] {
  const chatappBotToken = c.req.header('x-viber-auth-token')?.trim();
  const messengerBotToken = c.req.header('x-tg-bot-key')?.trim();
  return { ...(chatappBotToken ? { chatappBotToken } : {}), ...(messengerBotToken ? { messengerBotToken } : {}) };
}

function optionsOf(c: Context<Env>, endpoint: CascadeEndpoint, waitForFirstStep: boolean): CascadeSendOptions {
  const raw = c.req.param('referralGuid');
  if (raw !== undefined && FIXED_NAMES.has(raw)) throw new SpillwayError('not_found', `no such endpoint ${c.req.path}`);
  const referralGuid = raw === undefined ? undefined : parseOrThrow(uuidParam, raw, 'referralGuid', 'referralGuid');
  return { endpoint, credentials: credentialsOf(c), waitForFirstStep, ...(referralGuid ? { referralGuid } : {}) };
}

interface SendVariant {
  path: string;
  operationId: string;
  summary: string;
  endpoint: CascadeEndpoint;
  sync: boolean;
}

const HEADERS_NOTE =
  "Headers (interface 5.2): X-Authorization-Key authorizes; X-Viber-Auth-Token and X-Tg-Bot-Key carry the client's chat-app bot and messenger bot keys, " +
  'which enable the bot steps of the route (stored with the message until it ends; without them those steps are skipped).';

const VARIANTS: SendVariant[] = [
  {
    path: `${BASE}/send_message/async`,
    operationId: 'sendCascadeMessages',
    summary: 'Send cascade messages',
    endpoint: 'default',
    sync: false,
  },
  {
    path: `${BASE}/send_message/messenger-chatapp/async`,
    operationId: 'sendCascadeMessagesMessengerFirst',
    summary: 'Send cascade messages, messenger bot first',
    endpoint: 'messenger-first',
    sync: false,
  },
  {
    path: `${BASE}/send_message`,
    operationId: 'sendCascadeMessagesSync',
    summary: 'Send cascade messages (legacy, answers once the first step is handed to its channel)',
    endpoint: 'default',
    sync: true,
  },
  {
    path: `${BASE}/send_message_async`,
    operationId: 'sendCascadeMessagesLegacy',
    summary: 'Send cascade messages (legacy)',
    endpoint: 'default',
    sync: false,
  },
  {
    path: `${BASE}/send_message/gateway/messenger-chatapp/async`,
    operationId: 'sendCascadeMessagesViaGateway',
    summary: 'Send cascade messages through the gateway, messenger bot first',
    endpoint: 'messenger-first',
    sync: false,
  },
  {
    path: `${BASE}/${REFERRAL}/send_message`,
    operationId: 'sendReferralCascadeMessagesSync',
    summary: 'Send cascade messages for a referral (synchronous legacy)',
    endpoint: 'default',
    sync: true,
  },
  {
    path: `${BASE}/${REFERRAL}/send_message_async`,
    operationId: 'sendReferralCascadeMessages',
    summary: 'Send cascade messages for a referral (legacy)',
    endpoint: 'default',
    sync: false,
  },
  {
    path: `${BASE}/${REFERRAL}/send_message/gateway/messenger-chatapp/async`,
    operationId: 'sendReferralCascadeMessagesViaGateway',
    summary: 'Send cascade messages for a referral, messenger bot first',
    endpoint: 'messenger-first',
    sync: false,
  },
];

/** Registers the cascade API (interface 4.2 and the cascade rows of 4.3), `/api/routes`, `/api/items` and `/s/{code}`. */
export function registerCascadeRoutes(app: Hono<Env>): void {
  for (const v of VARIANTS) {
    defineRoute(
      app,
      {
        method: 'post',
        path: v.path,
        operationId: v.operationId,
        summary: v.summary,
        description: `Either shape of interface 4.2 (array of cascade messages, or the overview object). Rejected whole with every bad path. ${HEADERS_NOTE}`,
        tags: ['cascade'],
        auth: 'basic-or-key',
        rateLimit: 'messaging',
        ...(v.path.includes(':referralGuid') ? { params: { referralGuid: z.uuid() } } : {}),
        body: cascadeRequestSchema,
        bodyExample: cascadeRequestExample,
        responses: {
          200: {
            description: 'One messageId (GUID) and trackinId per message',
            schema: cascadeResponseSchema,
            example: cascadeResponseExample,
          },
          402: { description: 'Balance does not cover the first steps' },
        },
      },
      async (c) => {
        const options = optionsOf(c, v.endpoint, v.sync);
        const body = await readJson(c);
        return c.json(await c.var.engine.cascades.send(c.var.account.id, body as CascadeSendInput, options));
      },
    );
  }

  defineRoute(
    app,
    {
      method: 'post',
      path: `${BASE}/broadcast`,
      operationId: 'broadcastCascade',
      summary: 'Send one cascade to many recipients',
      description: `BroadcastCreateDTO: the members of a cascade message once, plus recipients (numbers or { toPhone, id, variables }). ${HEADERS_NOTE}`,
      tags: ['cascade'],
      auth: 'basic-or-key',
      rateLimit: 'messaging',
      body: broadcastRequestSchema,
      responses: {
        200: { description: 'One messageId and trackinId per recipient', schema: broadcastResponseSchema },
        402: { description: 'Balance does not cover the first steps' },
      },
    },
    async (c) => {
      const body = await readJson(c);
      return c.json(await c.var.engine.cascades.broadcast(c.var.account.id, body as BroadcastInput, optionsOf(c, 'default', false)));
    },
  );

  defineRoute(
    app,
    {
      method: 'get',
      path: `${BASE}/status_guid/:guid`,
      operationId: 'getCascadeStatusByGuid',
      summary: 'Status of a cascade message by its GUID',
      tags: ['cascade'],
      auth: 'basic-or-key',
      params: { guid: uuidParam },
      responses: {
        200: { description: 'The cascade status record', schema: cascadeStatusSchema },
        404: { description: 'No such message on this account' },
      },
    },
    async (c) =>
      c.json(await c.var.engine.cascades.statusByGuid(c.var.account.id, parseOrThrow(uuidParam, c.req.param('guid'), 'guid', 'guid'))),
  );

  defineRoute(
    app,
    {
      method: 'get',
      path: `${BASE}/status_id/:id`,
      operationId: 'getCascadeStatusByTrackinId',
      summary: 'Status of a cascade message by its trackinId (the newest with this id)',
      tags: ['cascade'],
      auth: 'basic-or-key',
      responses: {
        200: { description: 'The cascade status record', schema: cascadeStatusSchema },
        404: { description: 'No such message on this account' },
      },
    },
    async (c) => {
      const id = c.req.param('id') ?? '';
      // No trackinId is that long or holds U+0000 (both are refused at send).
      if (id.length > 100 || id.includes('\u0000')) throw new SpillwayError('not_found', 'cascade message not found');
      return c.json(await c.var.engine.cascades.statusByTrackinId(c.var.account.id, id));
    },
  );

  registerCascadeRouteApi(app);
  registerVariableRoutes(app);
}
