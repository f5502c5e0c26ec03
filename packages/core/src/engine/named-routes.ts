import type { ValidatedCascade } from '../cascade/cascade-request.ts';
import type { ErrorDetail } from '../errors.ts';
import { hasFlashcallStep } from '../routes/builtin-routes.ts';
import type { Route } from '../types/route.ts';
import type { RouteService } from './route-service.ts';

/** What {@link resolveNamedRoutes} answers. */
export interface NamedRoutes {
  /** The route of each message that names one, by its index in the request. */
  byIndex: Map<number, Route>;
  /** A message's unknown route, addressed at its `route`. */
  details: ErrorDetail[];
}

/**
 * The routes the messages of a cascade request name (`route`, a Spillway extension), which they
 * run on instead of the one bound to their alpha-name. Each distinct route is looked up once. A
 * flash call names a route with a flash-call step: the engine gives a flash call whose bound route
 * has none the built-in flash call, but it does not run another route than the one named.
 */
export async function resolveNamedRoutes(
  routes: Pick<RouteService, 'named'>,
  accountId: number,
  validated: readonly ValidatedCascade[],
): Promise<NamedRoutes> {
  const found = new Map<string, Route | string>();
  const byIndex = new Map<number, Route>();
  const details: ErrorDetail[] = [];
  for (const v of validated) {
    if (!v.route) continue;
    const { ref, id, revision } = v.route;
    let route = found.get(ref);
    if (route === undefined) {
      route = await routes.named(accountId, id, revision);
      found.set(ref, route);
    }
    if (typeof route === 'string') details.push({ path: `${v.path}.route`, message: `unknown route "${ref}": ${route}` });
    else if (v.messageType === 'flashcall' && !hasFlashcallStep(route))
      details.push({
        path: `${v.path}.route`,
        message: `route "${ref}" has no flash-call step, which a flashcall message needs (name none to run the built-in flash call, then SMS)`,
      });
    else byIndex.set(v.index, route);
  }
  return { byIndex, details };
}
