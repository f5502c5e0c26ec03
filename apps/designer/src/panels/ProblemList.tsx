import type { Selection } from '../editor/editor-machine.ts';
import type { Problem } from '../editor/route-problems.ts';

/** Every problem of the draft; a click selects the step or edge it points at. */
export function ProblemList({ problems, onSelect }: { problems: readonly Problem[]; onSelect(selection: Selection): void }) {
  if (problems.length === 0)
    return (
      <p className="ok" data-testid="route-valid">
        ✓ The route is valid
      </p>
    );
  return (
    <section className="panel-section problems" aria-label="Problems">
      <h3>
        {problems.length} problem{problems.length === 1 ? '' : 's'}
      </h3>
      <ul data-testid="problems">
        {problems.map((p) => (
          <li key={`${p.path}:${p.message}`}>
            <button
              type="button"
              className="link"
              onClick={() =>
                onSelect(
                  p.target.kind === 'route'
                    ? null
                    : p.target.kind === 'step'
                      ? { kind: 'step', id: p.target.id }
                      : { kind: 'edge', index: p.target.index },
                )
              }
            >
              <code>{p.path}</code> {p.message}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
