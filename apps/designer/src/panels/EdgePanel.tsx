import { ROUTE_OUTCOMES } from '@spillway/core';
import type { RouteEdge, RouteOutcome } from '@spillway/core';
import { OUTCOME_LABELS } from '../canvas/flow-elements.ts';

export interface EdgePanelProps {
  edge: RouteEdge;
  readOnly: boolean;
  onChange(patch: Partial<RouteEdge>): void;
  onDelete(): void;
}

/** One outcome edge: its outcome, and the wait for a read on `not_read` edges. */
export function EdgePanel({ edge, readOnly, onChange, onDelete }: EdgePanelProps) {
  return (
    <section className="panel-section" aria-label="Edge">
      <h3>
        Edge {edge.from} → {edge.to}
      </h3>
      <fieldset disabled={readOnly}>
        <label>
          On
          <select
            name="edge-on"
            value={edge.on}
            onChange={(e) => {
              const on = e.target.value as RouteOutcome;
              onChange(on === 'not_read' ? { on, afterSeconds: edge.afterSeconds ?? 3600 } : { on, afterSeconds: undefined });
            }}
          >
            {ROUTE_OUTCOMES.map((o) => (
              <option key={o} value={o}>
                {OUTCOME_LABELS[o]}
              </option>
            ))}
          </select>
        </label>
        {edge.on === 'not_read' && (
          <label>
            Not read after, s
            <input
              name="edge-after"
              type="number"
              min={1}
              value={edge.afterSeconds ?? ''}
              onChange={(e) => onChange({ afterSeconds: e.target.value === '' ? undefined : Number(e.target.value) })}
            />
          </label>
        )}
        <button type="button" className="danger" onClick={onDelete}>
          Delete edge
        </button>
      </fieldset>
    </section>
  );
}
