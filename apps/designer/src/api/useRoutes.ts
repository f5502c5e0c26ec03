import { useCallback, useEffect, useState } from 'react';
import type { ApiClient, RouteBinding, RouteView } from './api-client.ts';
import { describeError } from './describe-error.ts';

/** The account's routes and bindings, reloaded on demand (after a save or a bind). */
export function useRoutes(api: ApiClient) {
  const [routes, setRoutes] = useState<RouteView[]>([]);
  const [bindings, setBindings] = useState<RouteBinding[]>([]);
  const [error, setError] = useState<string | null>(null);
  const refresh = useCallback(async () => {
    try {
      const [r, b] = await Promise.all([api.listRoutes(), api.listBindings()]);
      setRoutes(r);
      setBindings(b);
      setError(null);
    } catch (e) {
      setError(describeError(e));
    }
  }, [api]);
  useEffect(() => void refresh(), [refresh]);
  return { routes, bindings, error, refresh };
}

/** Where a route applies: its alpha-names, and `default` when it is the account default. */
export function bindingsOf(routeId: string, bindings: readonly RouteBinding[]): string[] {
  const own = bindings.filter((b) => b.routeId === routeId).map((b) => b.alphaName ?? 'default');
  // The built-in default applies while the account has no default route of its own.
  if (routeId === 'default' && !bindings.some((b) => b.alphaName === null)) own.push('default');
  return own;
}
