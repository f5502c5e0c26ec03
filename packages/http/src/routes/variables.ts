import { SpillwayError } from '@spillway/core';
import type { Hono } from 'hono';
import type { Env } from '../env.ts';
import { defineRoute } from '../openapi.ts';
import { readJson } from '../read-json.ts';
import { variableUploadRequestSchema, variableUploadResponseSchema } from './cascade-schemas.ts';
// Raw JSON bodies: the engine validates them at run time; its parameter types are for embedders.
import type { UploadVariablesInput } from '@spillway/core';

/** Registers `POST /api/items` (cascade variables) and `GET /s/{code}` (short links). */
export function registerVariableRoutes(app: Hono<Env>): void {
  defineRoute(
    app,
    {
      method: 'post',
      path: '/api/items',
      operationId: 'storeVariables',
      summary: 'Store variables for %name=<id>%, %url=<id>% and %short_url=<id>%',
      description:
        'Body: { items: [{ id, value }] } or the bare array. Storing an id again replaces its value; values are read when a step is sent.',
      tags: ['cascade'],
      auth: 'basic-or-key',
      body: variableUploadRequestSchema,
      responses: { 200: { description: 'How many variables were stored', schema: variableUploadResponseSchema } },
    },
    async (c) => c.json(await c.var.engine.cascades.uploadVariables(c.var.account.id, (await readJson(c)) as UploadVariablesInput)),
  );

  defineRoute(
    app,
    {
      method: 'get',
      path: '/s/:code',
      operationId: 'followShortLink',
      summary: 'Follow a short link (records the click on the message history)',
      tags: ['cascade'],
      // Recipients follow links from their phones: no credentials.
      auth: 'none',
      responses: { 302: { description: 'Redirect to the target URL' }, 404: { description: 'No such short link' } },
    },
    async (c) => {
      // Hono answers HEAD with this GET handler: a HEAD (link previews, checkers) is no click.
      const code = c.req.param('code') ?? '';
      // Codes are letters and digits: one with U+0000 is no link (not a 400 at an internal path).
      if (code.includes('\u0000')) throw new SpillwayError('not_found', 'no such short link');
      const url = await c.var.engine.cascades.resolveShortLink(code, { count: c.req.raw.method === 'GET' });
      c.header('Cache-Control', 'no-store');
      return c.redirect(url, 302);
    },
  );
}
