import type { AnyStateMachine } from 'xstate';
import { SpillwayError } from '../errors.ts';
import { compileRoute } from '../machines/cascade-machine.ts';
import type { Storage } from '../ports/storage.ts';
import { BUILTIN_ROUTES, parseRouteRef, routeRef } from '../routes/builtin-routes.ts';
import type { Route } from '../types/route.ts';

/** Route revisions are immutable, so a loaded one is kept; this bounds the memory it takes. */
const CACHE_LIMIT = 5_000;

/** Loads routes by `id@revision` (built-in or stored) and their compiled machines, memoized. */
export interface RouteLoader {
  route(ref: string): Promise<Route>;
  machine(ref: string): Promise<AnyStateMachine>;
}

/** A {@link RouteLoader} over storage. */
export function createRouteLoader(storage: Storage, options: { maxRetries?: number | undefined } = {}): RouteLoader {
  const routes = new Map<string, Route>();
  const machines = new Map<string, AnyStateMachine>();
  const compileOptions = options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {};

  async function route(ref: string): Promise<Route> {
    const hit = routes.get(ref);
    if (hit) return hit;
    const parsed = parseRouteRef(ref);
    if (!parsed) throw new SpillwayError('internal', `malformed route reference ${ref}`);
    const builtin = BUILTIN_ROUTES[parsed.id];
    let found: Route | null = builtin && routeRef(builtin) === ref ? builtin : null;
    if (!found) {
      const stored = await storage.getRouteRevision(parsed.id, parsed.revision);
      if (stored) {
        const { accountId: _a, createdAt: _c, updatedAt: _u, ...definition } = stored;
        found = definition;
      }
    }
    if (!found) throw new SpillwayError('internal', `route ${ref} not found`);
    if (routes.size >= CACHE_LIMIT) routes.clear();
    routes.set(ref, found);
    return found;
  }

  return {
    route,
    async machine(ref) {
      const hit = machines.get(ref);
      if (hit) return hit;
      const machine = compileRoute(await route(ref), compileOptions);
      if (machines.size >= CACHE_LIMIT) machines.clear();
      machines.set(ref, machine);
      return machine;
    },
  };
}
