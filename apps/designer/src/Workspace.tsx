import { useActorRef, useSelector } from '@xstate/react';
import { ReactFlowProvider } from '@xyflow/react';
import { useEffect, useMemo, useState } from 'react';
import type { ApiClient, RouteView } from './api/api-client.ts';
import { useRoutes } from './api/useRoutes.ts';
import { EditMode } from './editor/EditMode.tsx';
import { editorMachine, hasUnsavedChanges } from './editor/editor-machine.ts';
import { useSaveShortcut } from './editor/useSaveShortcut.ts';
import { EmptyCanvas } from './layout/EmptyCanvas.tsx';
import { PanelLayout } from './layout/PanelLayout.tsx';
import { PanelSeparator } from './layout/PanelSeparator.tsx';
import { ModeErrorBoundary } from './ModeErrorBoundary.tsx';
import { RouteList } from './panels/RouteList.tsx';
import { SimulateMode } from './simulation/SimulateMode.tsx';
import { TrafficMode } from './traffic/TrafficMode.tsx';
import { WatchMode } from './watch/WatchMode.tsx';
import { testTarget } from './watch/test-target.ts';

type Mode = 'edit' | 'simulate' | 'watch' | 'traffic';

const MODE_NAMES: Record<Mode, string> = { edit: 'Edit', simulate: 'Simulate', watch: 'Watch', traffic: 'Traffic' };

/** What simulation depends on: the graph, not where the steps are drawn. */
const graphKey = (route: {
  start: string;
  steps: { id: string; channel: string; timeoutSeconds?: number | undefined }[];
  edges: unknown[];
}) => JSON.stringify([route.start, route.steps.map((s) => [s.id, s.channel, s.timeoutSeconds]), route.edges]);

/** What asks before unsaved changes are dropped (opening another route, a new one, signing out). */
export const DISCARD_QUESTION = 'Discard the unsaved changes of the open route?';

/** The id of the route list's panel, which its separator controls. */
const ROUTES_PANEL_ID = 'routes-panel';

/**
 * The signed-in designer: routes on the left, the open route in the middle, panels on the right;
 * the route list and the side panel as wide as the user drags them (`PanelLayout`).
 */
export function Workspace({ api, account, onSignOut }: { api: ApiClient; account: string; onSignOut(): void }) {
  const { routes, bindings, refresh, error } = useRoutes(api);
  const editor = useActorRef(editorMachine, { input: { api } });
  const snapshot = useSelector(editor, (s) => s);
  const [mode, setMode] = useState<Mode>('edit');
  const [watching, setWatching] = useState<string | null>(null);
  const { route, origin, saved } = snapshot.context;
  const unsaved = hasUnsavedChanges(snapshot.context);
  // Bumped to give a failed mode a fresh start.
  const [recoveries, setRecoveries] = useState(0);
  useSaveShortcut(editor, mode === 'edit');

  // Closing or reloading the tab asks first while there are unsaved changes.
  useEffect(() => {
    if (!unsaved) return;
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      // Older browsers show the dialog only when returnValue is set.
      e.returnValue = '';
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [unsaved]);

  /** Whether the open draft may be dropped: nothing unsaved, or the user agrees. */
  const mayDiscard = () => !unsaved || window.confirm(DISCARD_QUESTION);

  // A deleted route leaves the list.
  useEffect(() => {
    const subscription = editor.on('routeDeleted', () => void refresh());
    return () => subscription.unsubscribe();
  }, [editor, refresh]);

  // A save stores a revision: the list shows it.
  useEffect(() => {
    if (origin.id && origin.revision) void refresh();
  }, [origin.id, origin.revision, refresh]);

  const open = (r: RouteView) => {
    if (!mayDiscard()) return;
    editor.send({ type: 'LOAD', route: r });
    setMode('edit');
  };
  const newRoute = () => {
    if (!mayDiscard()) return;
    editor.send({ type: 'NEW' });
    setMode('edit');
  };
  const simKey = useMemo(() => (route ? graphKey(route) : ''), [route]);
  /** Why a mode cannot be chosen now (its tab's tooltip), or undefined when it can. */
  const unavailable = (m: Mode): string | undefined => {
    if (m === 'simulate' && !route) return 'Open a route to simulate it';
    if (m === 'traffic' && !origin.id) return 'Save the route to see its traffic';
    return undefined;
  };

  return (
    <ReactFlowProvider>
      <PanelLayout>
        <header className="top">
          <strong>Spillway designer</strong>
          <nav className="tabs" aria-label="Mode">
            {(['edit', 'simulate', 'watch', 'traffic'] as const).map((m) => (
              <button
                key={m}
                type="button"
                className={mode === m ? 'on' : ''}
                onClick={() => setMode(m)}
                disabled={unavailable(m) !== undefined}
                title={unavailable(m)}
              >
                {MODE_NAMES[m]}
              </button>
            ))}
          </nav>
          <span className="spacer" />
          <span className="muted" data-testid="account" title="The account signed in">
            {account}
          </span>
          <button type="button" onClick={() => mayDiscard() && onSignOut()}>
            Sign out
          </button>
        </header>
        <aside className="left" id={ROUTES_PANEL_ID}>
          {error && <p className="error">{error}</p>}
          <RouteList routes={routes} bindings={bindings} openId={origin.id} onOpen={open} onNew={newRoute} />
        </aside>
        <PanelSeparator panel="left" controls={ROUTES_PANEL_ID} label="Resize the route list" />
        <ModeErrorBoundary
          key={`${mode}:${recoveries}`}
          onLeave={() => {
            setMode('edit');
            setRecoveries((n) => n + 1);
          }}
        >
          {mode === 'edit' && (
            <EditMode
              snapshot={snapshot}
              editor={editor}
              bindings={bindings}
              onBind={async (alphaName) => {
                if (!origin.id) return;
                await api.bindRoute(origin.id, alphaName);
                await refresh();
              }}
              onNewRoute={newRoute}
            />
          )}
          {/* A mode whose route went away under it (deleted while the mode was being chosen) says so, never a blank. */}
          {mode === 'simulate' &&
            (route ? (
              <SimulateMode key={simKey} route={route} />
            ) : (
              <EmptyCanvas title="Nothing to simulate" onNewRoute={newRoute}>
                Open a route to simulate it: pick one on the left, or create one.
              </EmptyCanvas>
            ))}
          {mode === 'watch' && <WatchMode api={api} watching={watching} target={testTarget(snapshot.context)} onWatch={setWatching} />}
          {mode === 'traffic' &&
            (route && saved && origin.id && origin.revision ? (
              <TrafficMode api={api} route={saved} id={origin.id} revision={origin.revision} />
            ) : (
              <EmptyCanvas title="No traffic to show" onNewRoute={newRoute}>
                Traffic is counted per saved route: pick one of yours on the left, or create one.
              </EmptyCanvas>
            ))}
        </ModeErrorBoundary>
      </PanelLayout>
    </ReactFlowProvider>
  );
}
