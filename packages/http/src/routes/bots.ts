import { SpillwayError, fromMicros } from '@spillway/core';
import {
  botChatMessageSchema,
  botReceiverRemovalSchema,
  botReceiverRequestSchema,
  phoneNumberParamSchema,
  sendBotChatMessage,
} from '@spillway/core/adapter';
import type { Hono } from 'hono';
import { z } from 'zod';
import type { Env } from '../env.ts';
import { defineRoute } from '../openapi.ts';
import { parseJsonText, readJson, requestText } from '../read-json.ts';
import { dateParam } from '../date-param.ts';
import { readListQuery } from './list-query.ts';
import type { ClientDataRouteOptions } from './client-data.ts';
import { dataServiceOf } from './client-data.ts';
import { clientStorageOf } from './client-services.ts';

const DAY = 86_400_000;

/** The members that are set: the query's absent parameters are no members of the body they stand for. */
const withoutUndefined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

const botReceiverSchema = z.object({
  phoneNumber: z.string(),
  chatId: z.int().meta({ description: 'The messenger chat id (an integer, as `messengerMessage.chatId`)' }),
  botName: z.string(),
  updatedAt: z.iso.datetime(),
});

const costsQuerySchema = z.object({
  date: z
    .array(dateParam)
    .max(2)
    .optional()
    .meta({ description: 'Repeat: `date=<from>&date=<to>` ([from, to)); one date means that UTC day; none the last 30 days' }),
  bot_name: z.string().max(64).default(''),
  country: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'ISO 3166 alpha-2 code')
    .or(z.literal(''))
    .default(''),
});

const botCostsSchema = z.object({
  dateFrom: z.iso.datetime(),
  dateTo: z.iso.datetime(),
  currency: z.string(),
  totalCount: z.int(),
  totalCost: z.number(),
  items: z.array(
    z.object({
      date: z.iso.date(),
      botName: z.string(),
      channel: z.enum(['messenger', 'chatapp_bot']),
      country: z.string().meta({ description: 'ISO 3166 alpha-2, ZZ when unknown' }),
      count: z.int(),
      cost: z.number(),
    }),
  ),
});

const botReceiverQuerySchema = z.object({ phoneNumber: phoneNumberParamSchema, botName: z.string().max(64).default('') });

/** `DELETE /chat_bot/bot_receiver/phone`'s query: the body's members, for clients that send no body with a DELETE. */
const botReceiverRemovalQuerySchema = z.object({
  phoneNumber: z.string().optional().meta({ description: 'As in the body; required when the binding is named in the query' }),
  botName: z.string().optional().meta({ description: 'As in the body' }),
  chatId: z.string().optional().meta({ description: 'As in the body' }),
});

// Stored as text (the digits the request's integer had); answered as the integer it was sent as.
const receiverView = (r: { phoneNumber: string; chatId: string; botName: string; updatedAt: number }) => ({
  phoneNumber: r.phoneNumber,
  chatId: Number(r.chatId),
  botName: r.botName,
  updatedAt: new Date(r.updatedAt).toISOString(),
});

/**
 * Registers the bot routes: the messenger chat of a phone (`PUT`/`GET`/`DELETE /chat_bot/bot_receiver/phone`),
 * bot costs (`GET /api/Costs/bots`) and a chat message through the bot (`POST /api/myCodeBot/sendChatMessage`).
 */
export function registerBotRoutes(app: Hono<Env>, options: ClientDataRouteOptions = {}): void {
  defineRoute(
    app,
    {
      method: 'put',
      path: '/chat_bot/bot_receiver/phone',
      operationId: 'bindBotReceiverPhone',
      summary: 'Bind the messenger chat of a phone number (UpdateBotReceiverPhone)',
      description: 'Creates or replaces the binding of (botName, phoneNumber) to the chat id the bot has with that number.',
      tags: ['bots'],
      auth: 'basic-or-key',
      body: botReceiverRequestSchema,
      responses: { 200: { description: 'The binding', schema: botReceiverSchema } },
    },
    async (c) => c.json(receiverView(await dataServiceOf(c.var.engine, options).bindBotReceiver(c.var.account.id, await readJson(c)))),
  );

  defineRoute(
    app,
    {
      method: 'get',
      path: '/chat_bot/bot_receiver/phone',
      operationId: 'getBotReceiverPhone',
      summary: 'The messenger chat bound to a phone number',
      tags: ['bots'],
      auth: 'basic-or-key',
      query: botReceiverQuerySchema,
      responses: { 200: { description: 'The binding', schema: botReceiverSchema }, 404: { description: 'No binding' } },
    },
    async (c) => {
      const q = readListQuery(c, botReceiverQuerySchema);
      const found = await dataServiceOf(c.var.engine, options).botReceiver(c.var.account.id, q.botName, q.phoneNumber);
      if (!found) return c.json({ error: 'not_found', message: `no chat bound for ${q.phoneNumber}`, status: 404 }, 404);
      return c.json(receiverView(found));
    },
  );

  defineRoute(
    app,
    {
      method: 'delete',
      path: '/chat_bot/bot_receiver/phone',
      operationId: 'unbindBotReceiverPhone',
      summary: 'Unbind the messenger chat of a phone number',
      description:
        'The body names the binding as the PUT does: `phoneNumber` and `botName` (default the account’s only bot, ""). The ' +
        'messenger step then finds no chat for the number and is skipped. With the PUT’s `chatId` too, the binding is removed ' +
        'only while the number is still bound to that chat (409 once it was rebound to another). The same members may be ' +
        'given as query parameters instead of a body (`?phoneNumber=…&botName=…`), as the GET reads them; not both.',
      tags: ['bots'],
      auth: 'basic-or-key',
      query: botReceiverRemovalQuerySchema,
      body: botReceiverRemovalSchema,
      bodyRequired: false,
      bodyExample: { phoneNumber: '79991234567', botName: '' },
      responses: {
        204: { description: 'Unbound' },
        404: { description: 'No chat is bound to the number for this bot' },
        409: { description: 'The number is bound to another chat than the `chatId` given' },
      },
    },
    async (c) => {
      // Many clients send no body with a DELETE: the binding may be named in the query instead.
      const inQuery = Object.keys(c.req.queries()).length > 0;
      const text = await requestText(c);
      const blank = !text.trim();
      if (inQuery && !blank) {
        throw new SpillwayError('validation_failed', 'name the binding in the body or in the query, not both', [
          { path: '(query)', message: 'give either the query parameters or a body' },
        ]);
      }
      // Nothing named at all: say what is missing rather than that the absent body has no Content-Type.
      if (!inQuery && blank) {
        throw new SpillwayError('validation_failed', 'phoneNumber is required, in the query (?phoneNumber=…) or in a JSON body', [
          { path: 'phoneNumber', message: 'required, in the query or in the body' },
        ]);
      }
      const body = inQuery ? withoutUndefined(readListQuery(c, botReceiverRemovalQuerySchema)) : parseJsonText(c, text);
      await dataServiceOf(c.var.engine, options).unbindBotReceiver(c.var.account.id, body);
      return c.body(null, 204);
    },
  );

  defineRoute(
    app,
    {
      method: 'get',
      path: '/api/Costs/bots',
      operationId: 'getBotCosts',
      summary: 'Counts and costs of bot messages by date, bot and country (ChatappBotStatisticDTO)',
      description:
        'Sent attempts on the messenger and chat-app bot channels of messages created in the period, one row per UTC day, bot ' +
        '(the bot the step named: `messengerMessage.botName`, "" for the account’s only bot and the chat-app bot), channel ' +
        'and recipient country. At most 366 days.',
      tags: ['bots'],
      auth: 'basic-or-key',
      query: costsQuerySchema,
      responses: { 200: { description: 'The statistics', schema: botCostsSchema } },
    },
    async (c) => {
      const q = readListQuery(c, costsQuerySchema);
      const now = c.var.engine.clock.now();
      const [first, second] = q.date ?? [];
      const from = first ?? now - 30 * DAY;
      const to = second ?? (first !== undefined ? first + DAY : now);
      const account = c.var.account;
      const rows = await dataServiceOf(c.var.engine, options).botCosts(account.id, {
        from,
        to,
        ...(q.bot_name ? { botName: q.bot_name } : {}),
        ...(q.country ? { country: q.country } : {}),
      });
      return c.json({
        dateFrom: new Date(from).toISOString(),
        dateTo: new Date(to).toISOString(),
        currency: account.currency,
        totalCount: rows.reduce((n, r) => n + r.count, 0),
        totalCost: fromMicros(rows.reduce((n, r) => n + r.cost, 0)),
        items: rows.map((r) => ({ ...r, cost: fromMicros(r.cost) })),
      });
    },
  );

  defineRoute(
    app,
    {
      method: 'post',
      path: '/api/myCodeBot/sendChatMessage',
      operationId: 'sendBotChatMessage',
      summary: 'Send a chat message through the account’s messenger bot (MyCodeBotChatappRequest)',
      description:
        'Needs the bot key in `X-Tg-Bot-Key` and a chat bound to the number (`PUT /chat_bot/bot_receiver/phone`). The message ' +
        'runs as a messenger-first cascade (validation, billing, fallbacks, status at `/api/CascadeMessage/status_guid/{messageId}`); ' +
        '`%member%` in the text takes the number’s per-phone data.',
      tags: ['bots'],
      auth: 'basic-or-key',
      rateLimit: 'messaging',
      body: botChatMessageSchema,
      responses: {
        200: { description: 'The cascade message', schema: z.object({ messageId: z.uuid(), trackinId: z.string() }) },
        402: { description: 'Balance too low' },
        404: { description: 'No chat bound to the number' },
      },
    },
    async (c) => {
      const body = await readJson(c);
      const engine = c.var.engine;
      return c.json(
        await sendBotChatMessage(engine, clientStorageOf(engine), c.var.account.id, body, c.req.header('x-tg-bot-key')?.trim()),
      );
    },
  );
}
