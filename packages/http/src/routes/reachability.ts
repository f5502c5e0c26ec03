import { CHANNELS } from '@spillway/core';
import { phoneNumberParamSchema } from '@spillway/core/adapter';
import type { UnreachableEntry } from '@spillway/core';
import type { Hono } from 'hono';
import { z } from 'zod';
import type { Env } from '../env.ts';
import { defineRoute } from '../openapi.ts';
import { parseOrThrow } from '../validate.ts';

const phoneParam = phoneNumberParamSchema.meta({ description: 'The recipient, E.164 digits (a leading + is accepted)' });
const clearQuerySchema = z.object({
  channel: z.enum(CHANNELS).optional().meta({ description: 'Forget this channel only; without it, every channel of the number' }),
});

const entrySchema = z.object({
  channel: z.enum(CHANNELS),
  reason: z.string().meta({ description: 'What the driver answered' }),
  driver: z.string().nullable(),
  messageId: z.int().nullable().meta({ description: 'Internal id of the message whose attempt answered it' }),
  since: z.iso.datetime(),
  until: z.iso.datetime().meta({ description: 'When the memory forgets it' }),
});
const memorySchema = z.object({
  phoneNumber: z.string(),
  ttlSeconds: z.int().meta({ description: 'How long an answer is remembered (SPILLWAY_REACHABILITY_TTL); 0 when the memory is off' }),
  unreachable: z.array(entrySchema),
});

const entryView = (e: UnreachableEntry) => ({
  channel: e.channel,
  reason: e.reason,
  driver: e.driver,
  messageId: e.messageId,
  since: new Date(e.at).toISOString(),
  until: new Date(e.expiresAt).toISOString(),
});

const EXTENSION = 'A Spillway extension (not in the interface). ';

/**
 * Registers the reachability memory's routes (a Spillway extension): `GET` and `DELETE
 * /api/reachability/{phoneNumber}`, under the account's own auth.
 */
export function registerReachabilityRoutes(app: Hono<Env>): void {
  defineRoute(
    app,
    {
      method: 'get',
      path: '/api/reachability/:phoneNumber',
      operationId: 'getReachability',
      summary: 'Channels a number was recently found not to be on (the reachability memory)',
      description:
        EXTENSION +
        'When a channel answered that the number is not on it (no account on the chat app, the bot blocked or never started), ' +
        'the account remembers it for `ttlSeconds`: cascade steps and message fallbacks on that channel to that number are ' +
        'skipped at once meanwhile (history `Skipped` with the reason), so they cost nothing and nobody waits on them.',
      tags: ['reachability'],
      auth: 'basic-or-key',
      params: { phoneNumber: phoneParam },
      responses: { 200: { description: 'What the account remembers about the number', schema: memorySchema } },
    },
    async (c) => {
      const engine = c.var.engine;
      const { phoneNumber, entries } = await engine.reachability.show(c.var.account.id, c.req.param('phoneNumber') ?? '');
      return c.json({
        phoneNumber,
        ttlSeconds: engine.reachability.enabled ? engine.reachability.ttlSeconds : 0,
        unreachable: entries.map(entryView),
      });
    },
  );

  defineRoute(
    app,
    {
      method: 'delete',
      path: '/api/reachability/:phoneNumber',
      operationId: 'forgetReachability',
      summary: 'Forget what the reachability memory knows about a number',
      description: EXTENSION + 'The next cascade tries every channel of the number again (or `channel` only).',
      tags: ['reachability'],
      auth: 'basic-or-key',
      params: { phoneNumber: phoneParam },
      query: clearQuerySchema,
      responses: {
        200: { description: 'How many entries were forgotten', schema: z.object({ phoneNumber: z.string(), cleared: z.int() }) },
      },
    },
    async (c) => {
      const q = parseOrThrow(clearQuerySchema, { channel: c.req.query('channel') || undefined }, 'query');
      return c.json(await c.var.engine.reachability.clear(c.var.account.id, c.req.param('phoneNumber') ?? '', q.channel));
    },
  );
}
