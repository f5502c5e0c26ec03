import type { RouteBinding, RouteView } from '../api/api-client.ts';
import { bindingsOf } from '../api/useRoutes.ts';

export interface RouteListProps {
  routes: readonly RouteView[];
  bindings: readonly RouteBinding[];
  openId: string | null;
  onOpen(route: RouteView): void;
  onNew(): void;
}

function Item({ route, bindings, open, onOpen }: { route: RouteView; bindings: readonly RouteBinding[]; open: boolean; onOpen(): void }) {
  const bound = bindingsOf(route.id, bindings);
  return (
    <li>
      <button type="button" className={`route-item${open ? ' open' : ''}`} onClick={onOpen} data-testid={`route-${route.id}`}>
        <span className="route-name">{route.name}</span>
        <span className="route-meta">
          {route.builtin ? 'built-in · read-only' : `rev ${route.revision}`} · {route.steps.length} steps
        </span>
        {bound.length > 0 && (
          <span className="route-bindings">
            {bound.map((b) => (
              <span key={b} className={`badge ${b === 'default' ? 'default' : 'alpha'}`}>
                {b}
              </span>
            ))}
          </span>
        )}
      </button>
    </li>
  );
}

/** The account's routes (built-ins first) with the alpha-names each is bound to. */
export function RouteList({ routes, bindings, openId, onOpen, onNew }: RouteListProps) {
  const builtins = routes.filter((r) => r.builtin);
  const own = routes.filter((r) => !r.builtin);
  return (
    <nav className="route-list" aria-label="Routes">
      <button type="button" className="primary" onClick={onNew}>
        + New route
      </button>
      <h3>Your routes</h3>
      {own.length === 0 ? <p className="muted">None yet: start a new one or duplicate a built-in.</p> : null}
      <ul>
        {own.map((r) => (
          <Item key={r.id} route={r} bindings={bindings} open={r.id === openId} onOpen={() => onOpen(r)} />
        ))}
      </ul>
      <h3>Built-in</h3>
      <ul>
        {builtins.map((r) => (
          <Item key={r.id} route={r} bindings={bindings} open={r.id === openId} onOpen={() => onOpen(r)} />
        ))}
      </ul>
    </nav>
  );
}
