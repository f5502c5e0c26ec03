// The body schemas document the routes; the engine validates bodies with the same schemas.
import { SpillwayError, fromMicros, messagePatchSchema, sendRequestSchema } from '@spillway/core';
import type { WalletTransaction } from '@spillway/core';
import type { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from 'zod';
import type { Env } from '../env.ts';
import { defineRoute } from '../openapi.ts';
import { messageStatusExample, sendMessagesExample, sendMessagesResponseExample } from '../openapi-examples.ts';
import { readJson, readJsonText } from '../read-json.ts';
import {
  alphaNameCallbackRequestSchema,
  alphaNameSchema,
  accountSchema,
  balanceSchema,
  messageStatusSchema,
  sendResponseSchema,
  walletHistorySchema,
} from '../schemas.ts';
import { parseOrThrow } from '../validate.ts';
import { UrlRefusedError, checkCallbackUrl } from '../webhooks/guarded-post.ts';
import { clientStorageOf } from './client-services.ts';
import { pageParam, pageSizeParam, readListQuery } from './list-query.ts';
// Raw JSON bodies: the engine validates them at run time; its parameter types are for embedders.
import type { SendMessagesInput, UpdateMessageInput } from '@spillway/core';

const MESSAGE_ID = /^[1-9][0-9]{0,15}$/;
// Built once: zod schemas cost tens of microseconds to build, on every status read they would show.
const messageIdParam = z.string().regex(MESSAGE_ID, 'must be a positive integer');
const safeMessageId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/** The routes the direct routes (`createDirectRoutes`) also answer: their paths are their metrics' route labels. */
export const SEND_ROUTE = '/bat/messagelist';
export const STATUS_ROUTE = '/bat/message/:messageId';

/** The path's message id when it is a good one (checked without zod), else undefined. */
export function plainMessageId(raw: string | undefined): number | undefined {
  if (raw !== undefined && MESSAGE_ID.test(raw)) {
    const id = Number(raw);
    if (Number.isSafeInteger(id)) return id;
  }
  return undefined;
}

/** The path's message id; zod reports the bad ones (the common good one is checked without it). */
function messageIdOf(raw: string | undefined): number {
  const plain = plainMessageId(raw);
  if (plain !== undefined) return plain;
  const text = parseOrThrow(messageIdParam, raw, 'messageId', 'messageId');
  return parseOrThrow(safeMessageId, Number(text), 'messageId', 'messageId');
}

const TRANSACTION_TYPES = ['topup', 'charge', 'refund', 'adjustment'] as const;

const walletQuerySchema = z.object({
  ExternalAlphaName: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .meta({ description: 'Only transactions of messages with an attempt sent from this alpha-name (top-ups are left out)' }),
  TransactionTypes: z.array(z.enum(TRANSACTION_TYPES, { error: `must be one of ${TRANSACTION_TYPES.join(', ')}` })).optional(),
  Page: pageParam,
  PageSize: pageSizeParam,
});

function walletItem(t: WalletTransaction, currency: string) {
  return {
    id: t.id,
    transactionType: t.kind,
    amount: fromMicros(t.amount),
    balanceAfter: fromMicros(t.balanceAfter),
    currency,
    messageId: t.messageId,
    description: t.description,
    counterpartAccountId: t.counterpartAccountId,
    dt: new Date(t.createdAt).toISOString(),
  };
}

/** Registers the messaging API of interface 4.1 plus balance, wallet history and alpha-name callback. */
export function registerMessagingRoutes(app: Hono<Env>): void {
  defineRoute(
    app,
    {
      method: 'post',
      path: SEND_ROUTE,
      operationId: 'sendMessages',
      summary: 'Send messages (one campaign; at most 5000 items)',
      description: 'Accepts the whole request or rejects it whole: a 400 lists every invalid item by path.',
      tags: ['messaging'],
      auth: 'basic-or-key',
      rateLimit: 'messaging',
      body: sendRequestSchema,
      bodyExample: sendMessagesExample,
      responses: {
        200: { description: 'The campaign and one record per message', schema: sendResponseSchema, example: sendMessagesResponseExample },
        402: { description: 'Balance too low' },
        409: { description: 'customerMessageId reused with other content' },
      },
    },
    async (c) => {
      const elsewhere = c.get('sendsElsewhere');
      if (elsewhere) {
        // Parsed and answered where acceptances are written, errors included.
        const answer = await elsewhere(c.get('account').id, await readJsonText(c));
        if (answer.retryAfter) c.header('Retry-After', answer.retryAfter);
        return c.body(answer.body, answer.status as ContentfulStatusCode, { 'Content-Type': 'application/json' });
      }
      const body = await readJson(c);
      return c.json(await c.get('engine').messages.send(c.get('account').id, body as SendMessagesInput));
    },
  );

  defineRoute(
    app,
    {
      method: 'get',
      path: STATUS_ROUTE,
      operationId: 'getMessageStatus',
      summary: 'Status of a message',
      tags: ['messaging'],
      auth: 'basic-or-key',
      params: { messageId: z.int().positive() },
      responses: {
        200: { description: 'The message status record', schema: messageStatusSchema, example: messageStatusExample },
        404: { description: 'No such message on this account' },
      },
    },
    async (c) => {
      const account = c.get('account');
      // The account's currency is on the context: no second read of the account.
      return c.json(await c.get('engine').messages.status(account.id, messageIdOf(c.req.param('messageId')), account.currency));
    },
  );

  defineRoute(
    app,
    {
      method: 'patch',
      path: STATUS_ROUTE,
      operationId: 'updateMessage',
      summary: 'Change or cancel a message while it is scheduled',
      description:
        'The body is an object of the members to change (`text`, `ttl`, `scheduledAt`, `messageData`, `fallbacks`; null ' +
        'clears `ttl`, `scheduledAt` or `messageData`), or `{ "cancel": true }` alone. Sent as `application/json-patch+json` ' +
        'too, it is still such an object: a JSON Patch (RFC 6902) array of operations is refused with 400.',
      tags: ['messaging'],
      auth: 'basic-or-key',
      params: { messageId: z.int().positive() },
      body: messagePatchSchema,
      responses: {
        200: { description: 'The updated status record', schema: messageStatusSchema },
        404: { description: 'No such message on this account' },
        409: { description: 'The message is no longer scheduled' },
      },
    },
    async (c) => {
      const id = messageIdOf(c.req.param('messageId'));
      const body = await readJson(c);
      return c.json(await c.get('engine').messages.update(c.get('account').id, id, body as UpdateMessageInput));
    },
  );

  defineRoute(
    app,
    {
      method: 'get',
      path: '/bat/balance',
      operationId: 'getBalance',
      summary: 'Balance of the account',
      tags: ['messaging'],
      auth: 'basic-or-key',
      responses: { 200: { description: 'Balance in currency units', schema: balanceSchema } },
    },
    async (c) => c.json(await c.get('engine').accounts.balance(c.get('account').id)),
  );

  defineRoute(
    app,
    {
      method: 'get',
      path: '/api/account',
      operationId: 'getAccount',
      summary: 'The account of the credentials (a Spillway extension)',
      description:
        "Who an API key or a login and password sign in as: the account's id, login, name and currency. " +
        'A tool given a key checks it and names the account with one call.',
      tags: ['messaging'],
      auth: 'basic-or-key',
      responses: { 200: { description: 'The account', schema: accountSchema } },
    },
    (c) => {
      const { id, login, name, currency } = c.get('account');
      return c.json({ clientId: id, login, name, currency });
    },
  );

  defineRoute(
    app,
    {
      method: 'get',
      path: '/api/AlphaName/wallet/info',
      operationId: 'getWalletHistory',
      summary: 'Wallet history',
      description:
        'Parameter names are read in any case (`Page` or `page`); `TransactionTypes` may be repeated, comma-separated or ' +
        'written `TransactionTypes[]` (axios, qs). A parameter the route does not take, or one given twice with different ' +
        'values, is refused (400) rather than ignored.',
      tags: ['client'],
      auth: 'basic-or-key',
      query: walletQuerySchema,
      responses: {
        200: { description: 'One page of wallet transactions (SmsWalletHistoryDto), newest first', schema: walletHistorySchema },
      },
    },
    async (c) => {
      const query = readListQuery(c, walletQuerySchema, { lowercase: ['TransactionTypes'] });
      const account = c.get('account');
      const page = { ...(query.TransactionTypes ? { kinds: query.TransactionTypes } : {}), page: query.Page, pageSize: query.PageSize };
      const { items, total } = query.ExternalAlphaName
        ? await clientStorageOf(c.get('engine')).listWalletTransactionsOfAlphaName(account.id, query.ExternalAlphaName, page)
        : await c.get('engine').accounts.walletHistory(account.id, page);
      return c.json({ items: items.map((t) => walletItem(t, account.currency)), total, page: query.Page, pageSize: query.PageSize });
    },
  );

  defineRoute(
    app,
    {
      method: 'put',
      path: '/api/AlphaName/callback',
      operationId: 'setAlphaNameCallback',
      summary: 'Set (or remove with url null) the callback URL of incoming chat-app messages of an alpha-name',
      tags: ['client'],
      auth: 'basic-or-key',
      body: alphaNameCallbackRequestSchema,
      responses: {
        200: { description: 'The alpha-name with its callback', schema: alphaNameSchema },
        400: { description: 'Not an http(s) URL, or its host is (or resolves to) a private, loopback or link-local address' },
        404: { description: 'The account has no such alpha-name' },
      },
    },
    async (c) => {
      const body = parseOrThrow(alphaNameCallbackRequestSchema, await readJson(c), 'request body');
      if (body.url !== null) {
        try {
          await checkCallbackUrl(body.url, c.get('callbackUrlPolicy') ?? {});
        } catch (error) {
          if (!(error instanceof UrlRefusedError)) throw error;
          throw new SpillwayError('validation_failed', `url: ${error.message}`, [{ path: 'url', message: error.message }]);
        }
      }
      const alpha = await c.get('engine').accounts.setAlphaNameCallback(c.get('account').id, body.alphaName, body.url);
      return c.json({ alphaName: alpha.name, channels: alpha.channels, callbackUrl: alpha.callbackUrl });
    },
  );
}
