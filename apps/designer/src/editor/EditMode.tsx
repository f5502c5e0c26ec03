import { useReactFlow } from '@xyflow/react';
import type { ActorRefFrom, SnapshotFrom } from 'xstate';
import { useEffect } from 'react';
import type { RouteBinding } from '../api/api-client.ts';
import type { StepFlowNode } from '../canvas/flow-elements.ts';
import type { OutcomeFlowEdge } from '../canvas/OutcomeEdge.tsx';
import { RouteCanvas } from '../canvas/RouteCanvas.tsx';
import { Toolbar } from '../canvas/Toolbar.tsx';
import { EmptyCanvas } from '../layout/EmptyCanvas.tsx';
import { SidePanel } from '../layout/SidePanel.tsx';
import { ConflictDialog } from '../panels/ConflictDialog.tsx';
import { EdgePanel } from '../panels/EdgePanel.tsx';
import { ProblemList } from '../panels/ProblemList.tsx';
import { RoutePanel } from '../panels/RoutePanel.tsx';
import { StepPanel } from '../panels/StepPanel.tsx';
import { stepIdProblem } from './route-edits.ts';
import { canSave, hasUnsavedChanges, selectedStepIds } from './editor-machine.ts';
import type { editorMachine } from './editor-machine.ts';

export interface EditModeProps {
  snapshot: SnapshotFrom<typeof editorMachine>;
  editor: ActorRefFrom<typeof editorMachine>;
  bindings: readonly RouteBinding[];
  onBind(alphaName: string | null): Promise<void>;
  /** Starts a new route, as the route list's "+ New route" does (offered while no route is open). */
  onNewRoute(): void;
}

/** What asks before a stored route is deleted. */
export const deleteQuestion = (name: string) => `Delete the route "${name}"? This cannot be undone.`;

const typing = (target: EventTarget | null) =>
  target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'SELECT', 'TEXTAREA'].includes(target.tagName));

/** The editor: canvas with its toolbar, and the side panel of the route, the selection and the problems. */
export function EditMode({ snapshot, editor, bindings, onBind, onNewRoute }: EditModeProps) {
  const { route, origin, selection, problems, past, future, theirs, error } = snapshot.context;
  const readOnly = origin.builtin;
  const { getNodes } = useReactFlow<StepFlowNode, OutcomeFlowEdge>();

  // Ctrl+S is the workspace's (useSaveShortcut): it saves from every mode.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey)) return;
      const key = e.key.toLowerCase();
      // In a field, the other shortcuts are the field's own (undo typing, copy text).
      if (typing(e.target)) return;
      if (key === 'z') editor.send({ type: e.shiftKey ? 'REDO' : 'UNDO' });
      else if (key === 'y') editor.send({ type: 'REDO' });
      else if (key === 'c') {
        // Every step selected on the canvas (a shift-drag box, Ctrl+click), which holds the panel's one too.
        const ids = getNodes()
          .filter((n) => n.selected)
          .map((n) => n.id);
        if (ids.length > 0) editor.send({ type: 'COPY', ids });
      } else if (key === 'v') editor.send({ type: 'PASTE' });
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [editor, getNodes]);

  if (!route) {
    return (
      <EmptyCanvas title="No route open" onNewRoute={onNewRoute}>
        Pick a route on the left, or create one. Built-in routes open read-only: duplicate one to edit it.
      </EmptyCanvas>
    );
  }
  const step = selection?.kind === 'step' ? route.steps.find((s) => s.id === selection.id) : undefined;
  const several = selection?.kind === 'steps' ? selectedStepIds(selection).filter((id) => route.steps.some((s) => s.id === id)) : [];
  const edge = selection?.kind === 'edge' ? route.edges[selection.index] : undefined;
  return (
    <>
      <main className="canvas-area">
        <Toolbar
          readOnly={readOnly}
          canUndo={past.length > 0}
          canRedo={future.length > 0}
          onAdd={(channel) => editor.send({ type: 'ADD_STEP', channel })}
          onUndo={() => editor.send({ type: 'UNDO' })}
          onRedo={() => editor.send({ type: 'REDO' })}
          onLayout={() => editor.send({ type: 'LAYOUT' })}
        />
        <RouteCanvas
          route={route}
          viewKey={`edit:${snapshot.context.opens}`}
          selection={selection}
          problems={problems}
          readOnly={readOnly}
          onSelect={(s) => editor.send({ type: 'SELECT', selection: s })}
          onConnect={(from, to, on) => editor.send({ type: 'CONNECT', from, to, on })}
          onDelete={(steps, edges) => editor.send({ type: 'DELETE', steps, edges })}
          onMove={(positions, nudge) => editor.send({ type: 'MOVE_STEPS', positions, nudge })}
        />
      </main>
      <SidePanel>
        {error && (
          <p className="error" role="alert">
            {error}{' '}
            <button type="button" className="link" onClick={() => editor.send({ type: 'DISMISS' })}>
              dismiss
            </button>
          </p>
        )}
        <RoutePanel
          route={route}
          origin={origin}
          dirty={hasUnsavedChanges(snapshot.context)}
          saving={snapshot.matches('saving')}
          deleting={snapshot.matches('deleting')}
          canSave={canSave(snapshot.context)}
          bindings={bindings}
          onRename={(name) => editor.send({ type: 'RENAME', name })}
          onSave={() => editor.send({ type: 'SAVE' })}
          onDuplicate={() => editor.send({ type: 'DUPLICATE' })}
          onDelete={() => {
            if (window.confirm(deleteQuestion(snapshot.context.saved?.name ?? route.name))) editor.send({ type: 'DELETE_ROUTE' });
          }}
          onImport={(json) => editor.send({ type: 'IMPORT', json })}
          onBind={onBind}
        />
        <ProblemList problems={problems} onSelect={(s) => editor.send({ type: 'SELECT', selection: s })} />
        {step && (
          <StepPanel
            key={step.id}
            step={step}
            idProblem={(id) => stepIdProblem(route, step.id, id)}
            isStart={route.start === step.id}
            readOnly={readOnly}
            onChange={(patch) => editor.send({ type: 'UPDATE_STEP', id: step.id, patch })}
            onMakeStart={() => editor.send({ type: 'SET_START', id: step.id })}
            onDelete={() => editor.send({ type: 'DELETE', steps: [step.id], edges: [] })}
          />
        )}
        {several.length > 0 && (
          <section className="panel-section" aria-label="Steps">
            <h3>{several.length} steps selected</h3>
            <button type="button" className="danger" onClick={() => editor.send({ type: 'DELETE', steps: several, edges: [] })}>
              Delete steps
            </button>
          </section>
        )}
        {edge && selection?.kind === 'edge' && (
          <EdgePanel
            edge={edge}
            readOnly={readOnly}
            onChange={(patch) => editor.send({ type: 'UPDATE_EDGE', index: selection.index, patch })}
            onDelete={() => editor.send({ type: 'DELETE', steps: [], edges: [selection.index] })}
          />
        )}
      </SidePanel>
      {snapshot.matches({ conflict: 'deciding' }) && theirs && (
        <ConflictDialog
          theirs={theirs}
          onReload={() => editor.send({ type: 'RELOAD_THEIRS' })}
          onOverwrite={() => editor.send({ type: 'OVERWRITE' })}
          onCancel={() => editor.send({ type: 'DISMISS' })}
        />
      )}
    </>
  );
}
