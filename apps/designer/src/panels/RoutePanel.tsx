import type { Route } from '@spillway/core';
import { useRef, useState } from 'react';
import type { RouteBinding } from '../api/api-client.ts';
import { describeError } from '../api/describe-error.ts';
import { bindingsOf } from '../api/useRoutes.ts';
import { exportFileName } from './export-file-name.ts';
import type { DraftOrigin } from '../editor/editor-machine.ts';

export interface RoutePanelProps {
  route: Route;
  origin: DraftOrigin;
  dirty: boolean;
  saving: boolean;
  deleting: boolean;
  canSave: boolean;
  bindings: readonly RouteBinding[];
  onRename(name: string): void;
  onSave(): void;
  onDuplicate(): void;
  /** Deletes the stored route; asks first (it cannot be undone). */
  onDelete(): void;
  onImport(json: string): void;
  onBind(alphaName: string | null): Promise<void>;
}

function download(route: Route) {
  const blob = new Blob([`${JSON.stringify(route, null, 2)}\n`], { type: 'application/json' });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = exportFileName(route);
  a.click();
  URL.revokeObjectURL(a.href);
}

/** The route itself: name, save with its revision, duplicate, delete, JSON import/export, binding. */
export function RoutePanel(props: RoutePanelProps) {
  const { route, origin, dirty, saving, deleting, canSave, bindings } = props;
  const file = useRef<HTMLInputElement>(null);
  const [alphaName, setAlphaName] = useState('');
  const [bindError, setBindError] = useState<string | null>(null);
  const bind = (name: string | null) => {
    setBindError(null);
    props.onBind(name).catch((e: unknown) => setBindError(describeError(e)));
  };
  const bound = origin.id ? bindingsOf(origin.id, bindings) : [];
  return (
    <section className="panel-section" aria-label="Route">
      <h3>Route</h3>
      <label>
        Name
        <input name="route-name" value={route.name} disabled={origin.builtin} onChange={(e) => props.onRename(e.target.value)} />
      </label>
      <p className="muted" data-testid="route-origin">
        {origin.builtin ? 'Built-in, read-only' : origin.id ? `${origin.id} · revision ${origin.revision}` : 'Not saved yet'}
        {dirty && !origin.builtin ? ' · unsaved changes' : ''}
      </p>
      <div className="row">
        {origin.builtin ? (
          <button type="button" className="primary" onClick={props.onDuplicate}>
            Duplicate to edit
          </button>
        ) : (
          <button type="button" className="primary" onClick={props.onSave} disabled={!canSave || saving} data-testid="save">
            {saving ? 'Saving…' : 'Save'}
          </button>
        )}
        {!origin.builtin && origin.id && (
          <button type="button" onClick={props.onDuplicate}>
            Duplicate
          </button>
        )}
        {!origin.builtin && origin.id && (
          <button type="button" className="danger" onClick={props.onDelete} disabled={saving || deleting}>
            {deleting ? 'Deleting…' : 'Delete route'}
          </button>
        )}
      </div>
      <div className="row">
        <button type="button" onClick={() => download(route)}>
          Export JSON
        </button>
        {!origin.builtin && (
          <button type="button" onClick={() => file.current?.click()}>
            Import JSON
          </button>
        )}
        <input
          ref={file}
          type="file"
          accept="application/json,.json"
          hidden
          data-testid="import-file"
          onChange={(e) => {
            const f = e.target.files?.[0];
            if (f) void f.text().then(props.onImport);
            e.target.value = '';
          }}
        />
      </div>
      {origin.id && !origin.builtin && (
        <div className="binding">
          <h4>Binding</h4>
          <p className="muted" data-testid="route-bindings">
            {bound.length ? `Bound to ${bound.join(', ')}` : 'Not bound: messages use another route'}
          </p>
          <div className="row">
            <input name="alpha-name" placeholder="Alpha-name" value={alphaName} onChange={(e) => setAlphaName(e.target.value)} />
            <button type="button" disabled={!alphaName.trim() || dirty} onClick={() => bind(alphaName.trim())}>
              Bind
            </button>
          </div>
          <button type="button" disabled={dirty} onClick={() => bind(null)}>
            Make account default
          </button>
          {dirty && <p className="muted">Save before binding: the binding takes the stored revision.</p>}
          {bindError && <p className="error">{bindError}</p>}
        </div>
      )}
    </section>
  );
}
