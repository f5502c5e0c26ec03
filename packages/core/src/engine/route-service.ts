import type { Clock } from '../clock.ts';
import { SpillwayError } from '../errors.ts';
import { isoTime as iso } from '../iso-time.ts';
import type { RouteBinding, RouteDefinition, StoredRoute } from '../ports/cascade-storage.ts';
import type { Storage } from '../ports/storage.ts';
import { BUILTIN_ROUTES, defaultRoute, messengerFirstRoute } from '../routes/builtin-routes.ts';
import { assertValidRoute } from '../routes/validate-route.ts';
import { routeSchema } from '../types/route.ts';
import type { Route } from '../types/route.ts';
import type { CascadeEndpoint, RouteView } from './cascade-types.ts';

/**
 * A stored revision as the API shows it. Its graph is read back through the route schema, which
 * lists members in one order: PostgreSQL's jsonb keeps them in its own (`edges` before `start`,
 * `{ on, to, from }`), SQLite as they were written, and both must answer alike.
 */
function storedView(r: StoredRoute): RouteView {
  const { accountId: _a, createdAt, updatedAt, id, revision, ...definition } = r;
  const { id: _i, revision: _r, ...graph } = routeSchema.parse(definition);
  return { ...graph, id, revision, builtin: false, createdAt: iso(createdAt), updatedAt: iso(updatedAt) };
}

function builtinView(r: Route): RouteView {
  return { ...(r as Required<Pick<Route, 'id' | 'revision'>> & Route), builtin: true, createdAt: null, updatedAt: null };
}

/** The graph of a route body: id and revision are the server's. */
function definitionOf(body: unknown): RouteDefinition {
  const { id: _id, revision: _rev, ...input } = (body ?? {}) as Record<string, unknown>;
  const { id: _i, revision: _r, ...definition } = assertValidRoute(input);
  return definition;
}

/** How a value the client gave is shown in a message: short, and never the whole of a long one. */
function shown(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return 'an object';
  const text = JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/**
 * The revision a PUT replaces (optimistic locking): "required" only when none was given, and for
 * one given, what is wrong with it (`"2"` is a string, not a revision).
 */
function revisionOf(body: unknown): number {
  const given = typeof body === 'object' && body !== null ? (body as { revision?: unknown }).revision : undefined;
  const refuse = (message: string) => new SpillwayError('validation_failed', 'The route is invalid', [{ path: 'revision', message }]);
  if (given === undefined) throw refuse('the revision being replaced is required (optimistic locking)');
  if (typeof given !== 'number' || !Number.isSafeInteger(given) || given < 1) {
    throw refuse(`must be a whole number of 1 or more, got ${shown(given)}`);
  }
  return given;
}

/** Routes of accounts over HTTP: stored revisions, the read-only built-ins, bindings, resolution. */
export function createRouteService(storage: Storage, clock: Clock) {
  async function load(accountId: number, id: string): Promise<StoredRoute> {
    const route = await storage.getRoute(accountId, id);
    if (!route) throw new SpillwayError('not_found', `route ${id} not found`);
    return route;
  }
  const readOnly = (id: string) => {
    if (BUILTIN_ROUTES[id]) throw new SpillwayError('forbidden', `route ${id} is built in and read-only; create a route of your own`);
  };

  return {
    async list(accountId: number): Promise<RouteView[]> {
      return [...Object.values(BUILTIN_ROUTES).map(builtinView), ...(await storage.listRoutes(accountId)).map(storedView)];
    },
    async get(accountId: number, id: string): Promise<RouteView> {
      const builtin = BUILTIN_ROUTES[id];
      return builtin ? builtinView(builtin) : storedView(await load(accountId, id));
    },
    async create(accountId: number, body: unknown): Promise<RouteView> {
      const definition = definitionOf(body);
      // Ids are unique across accounts, so the server picks them: a client's choice could collide.
      const id = `rt_${globalThis.crypto.randomUUID()}`;
      return storedView(await storage.createRoute(accountId, id, definition, clock.now()));
    },
    async update(accountId: number, id: string, body: unknown): Promise<RouteView> {
      readOnly(id);
      const revision = revisionOf(body);
      const definition = definitionOf(body);
      const updated = await storage.updateRoute(accountId, id, revision, definition, clock.now());
      if (!updated) throw new SpillwayError('not_found', `route ${id} not found`);
      return storedView(updated);
    },
    async remove(accountId: number, id: string): Promise<void> {
      readOnly(id);
      if (!(await storage.deleteRoute(accountId, id, clock.now()))) throw new SpillwayError('not_found', `route ${id} not found`);
    },
    async bind(accountId: number, id: string, alphaName: string | null): Promise<RouteBinding> {
      if (alphaName !== null && !(await storage.getAlphaName(accountId, alphaName))) {
        throw new SpillwayError('validation_failed', 'Unknown alpha-name', [
          { path: 'alphaName', message: `"${alphaName}" is not an alpha-name of this account` },
        ]);
      }
      if (BUILTIN_ROUTES[id]) {
        // Bindings are stored against the account's own routes, so a built-in cannot be bound;
        // `default` can, where dropping the binding makes resolution fall through to it.
        const accountDefault = (await storage.listRouteBindings(accountId)).some((b) => b.alphaName === null);
        if (id !== defaultRoute.id || (alphaName !== null && accountDefault)) {
          throw new SpillwayError('validation_failed', 'A built-in route cannot be bound', [
            {
              path: 'routeId',
              message: `route ${id} is built in and cannot be bound${id === defaultRoute.id ? ' to an alpha-name while the account has a default route' : ''}; create a route of your own with its steps and bind that`,
            },
          ]);
        }
        await storage.unbindRoute(accountId, alphaName);
        return { alphaName, routeId: id };
      }
      if (!(await storage.bindRoute(accountId, id, alphaName))) throw new SpillwayError('not_found', `route ${id} not found`);
      return { alphaName, routeId: id };
    },
    bindings: (accountId: number) => storage.listRouteBindings(accountId),

    /**
     * A route a message names (`route`, see `resolveNamedRoutes`): a built-in, or a live route of
     * the account, at its latest revision or at `revision`; else why not, as an error message. A
     * deleted route and another account's are unknown alike, so that no other account's id leaks.
     */
    async named(accountId: number, id: string, revision: number | null): Promise<Route | string> {
      const builtin = BUILTIN_ROUTES[id];
      const latest = builtin ? null : await storage.getRoute(accountId, id);
      const newest = builtin?.revision ?? latest?.revision;
      if (newest === undefined) return `no such route of this account, nor a built-in one (${Object.keys(BUILTIN_ROUTES).join(', ')})`;
      if (revision !== null && revision > newest) return `route ${id} has ${newest === 1 ? 'revision 1 only' : `revisions 1 to ${newest}`}`;
      if (builtin) return builtin;
      // Revisions count up from 1 and are all kept: one below the latest is stored.
      const stored = revision === null || revision === newest ? latest : await storage.getRouteRevision(id, revision);
      if (!stored || stored.accountId !== accountId) return `route ${id} has no revision ${revision}`;
      const { accountId: _a, createdAt: _c, updatedAt: _u, ...route } = stored;
      return route;
    },

    /**
     * The route a new message runs on: the alpha-name's binding, else the account default, else
     * the built-in default. The `messenger-first` endpoints keep a bound route that starts with
     * the messenger bot and otherwise take the built-in messenger-first route.
     */
    async resolve(accountId: number, alphaName: string, endpoint: CascadeEndpoint): Promise<Route> {
      const stored = await storage.resolveRoute(accountId, alphaName);
      const route: Route | null = stored ? { ...stored } : null;
      if (endpoint === 'messenger-first') {
        const start = route?.steps.find((s) => s.id === route.start);
        return route && start?.channel === 'messenger' ? route : messengerFirstRoute;
      }
      return route ?? defaultRoute;
    },
  };
}

export type RouteService = ReturnType<typeof createRouteService>;
