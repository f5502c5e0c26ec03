import type { Hono } from 'hono';
import { z } from 'zod';
import type { Env } from '../env.ts';
import { defineRoute } from '../openapi.ts';
import { readJson } from '../read-json.ts';
import { parseOrThrow } from '../validate.ts';
import { noQuerySchema, positiveIntParam, readListQuery } from './list-query.ts';
import { routeIdParam, routeRevision } from './route-stats-api.ts';
import { bindingRequestSchema, bindingSchema, routeBodySchema, routeViewSchema } from './cascade-schemas.ts';
// Raw JSON bodies: the engine validates them at run time; its parameter types are for embedders.
import type { RouteInput } from '@spillway/core';

const tags = ['routes'];
const revisionQuerySchema = z.object({ revision: positiveIntParam().optional() });
const notFound = { 404: { description: 'No such route on this account' } };

/**
 * Registers `/api/routes`: the account's cascade routes (plus the read-only built-ins), with
 * optimistic locking on updates (`revision`, 409 when stale) and bindings to alpha-names or as
 * the account default.
 */
export function registerCascadeRouteApi(app: Hono<Env>): void {
  defineRoute(
    app,
    {
      method: 'get',
      path: '/api/routes',
      operationId: 'listRoutes',
      summary: 'List routes (built-in ones first)',
      tags,
      auth: 'basic-or-key',
      responses: { 200: { description: 'Routes', schema: z.array(routeViewSchema) } },
    },
    async (c) => {
      readListQuery(c, noQuerySchema);
      return c.json(await c.var.engine.cascades.listRoutes(c.var.account.id));
    },
  );

  // Before `/api/routes/:id`, which would otherwise take `bindings` as an id.
  defineRoute(
    app,
    {
      method: 'get',
      path: '/api/routes/bindings',
      operationId: 'listRouteBindings',
      summary: 'Route bindings (alphaName null: the account default)',
      tags,
      auth: 'basic-or-key',
      responses: { 200: { description: 'Bindings', schema: z.array(bindingSchema) } },
    },
    async (c) => {
      readListQuery(c, noQuerySchema);
      return c.json(await c.var.engine.cascades.listBindings(c.var.account.id));
    },
  );

  defineRoute(
    app,
    {
      method: 'get',
      path: '/api/routes/:id',
      operationId: 'getRoute',
      summary: 'Get a route (latest revision, or `?revision=N`: the one a message ran on)',
      tags,
      auth: 'basic-or-key',
      query: revisionQuerySchema,
      responses: { 200: { description: 'The route', schema: routeViewSchema }, ...notFound },
    },
    async (c) => {
      const { revision } = readListQuery(c, revisionQuerySchema);
      return c.json(await routeRevision(c.var.engine, c.var.account.id, routeIdParam(c), revision));
    },
  );

  defineRoute(
    app,
    {
      method: 'post',
      path: '/api/routes',
      operationId: 'createRoute',
      summary: 'Create a route (revision 1; the server picks its id)',
      tags,
      auth: 'basic-or-key',
      body: routeBodySchema,
      responses: { 201: { description: 'The stored route', schema: routeViewSchema } },
    },
    async (c) => c.json(await c.var.engine.cascades.createRoute(c.var.account.id, (await readJson(c)) as RouteInput), 201),
  );

  defineRoute(
    app,
    {
      method: 'put',
      path: '/api/routes/:id',
      operationId: 'replaceRoute',
      summary: 'Replace a route; `revision` must be the latest one',
      description: 'Stores a new revision; messages already running keep the revision they started on.',
      tags,
      auth: 'basic-or-key',
      body: routeBodySchema.extend({ revision: z.int().positive() }),
      responses: {
        200: { description: 'The new revision', schema: routeViewSchema },
        403: { description: 'Built-in routes are read-only' },
        409: { description: 'The route changed meanwhile (stale revision)' },
        ...notFound,
      },
    },
    async (c) => c.json(await c.var.engine.cascades.updateRoute(c.var.account.id, routeIdParam(c), (await readJson(c)) as RouteInput)),
  );

  defineRoute(
    app,
    {
      method: 'delete',
      path: '/api/routes/:id',
      operationId: 'deleteRoute',
      summary: 'Delete a route and its bindings',
      tags,
      auth: 'basic-or-key',
      responses: { 204: { description: 'Deleted' }, 403: { description: 'Built-in routes are read-only' }, ...notFound },
    },
    async (c) => {
      await c.var.engine.cascades.deleteRoute(c.var.account.id, routeIdParam(c));
      return c.body(null, 204);
    },
  );

  defineRoute(
    app,
    {
      method: 'put',
      path: '/api/routes/:id/binding',
      operationId: 'bindRoute',
      summary: 'Bind a route to an alpha-name, or (alphaName null or absent) make it the account default',
      description:
        'Built-in routes cannot be bound (400), except `default`, which removes the binding (refused for an alpha-name while the account has a default route of its own).',
      tags,
      auth: 'basic-or-key',
      body: bindingRequestSchema,
      responses: { 200: { description: 'The binding', schema: bindingSchema }, ...notFound },
    },
    async (c) => {
      const body = parseOrThrow(bindingRequestSchema, await readJson(c), 'binding');
      return c.json(await c.var.engine.cascades.bindRoute(c.var.account.id, routeIdParam(c), body.alphaName ?? null));
    },
  );
}
