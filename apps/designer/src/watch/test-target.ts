import type { EditorContext } from '../editor/editor-machine.ts';
import { hasUnsavedChanges } from '../editor/editor-machine.ts';

/**
 * The route a test cascade of the Watch mode runs: the route open in the editor, at the revision
 * saved (`id@revision`, sent as the message's `route`); the alpha-name's binding while no route is
 * open; or none, and why, while the open route differs from every saved revision.
 */
export type TestTarget = { kind: 'route'; ref: string; name: string } | { kind: 'binding' } | { kind: 'unsaved'; why: string };

/**
 * What a test cascade runs, given the editor's draft. A draft with unsaved changes is never
 * tested as its last saved revision: what ran would not be what is drawn.
 */
export function testTarget(context: Pick<EditorContext, 'route' | 'saved' | 'origin' | 'problems'>): TestTarget {
  const { route, origin, problems } = context;
  if (!route) return { kind: 'binding' };
  // Fixing comes before saving: a route with problems cannot be saved (Ctrl+S would do nothing).
  const ask = (it: 'it' | 'them') =>
    problems.length > 0
      ? `fix its ${problems.length === 1 ? 'problem' : `${problems.length} problems`} in Edit, then save ${it} (Ctrl+S) to test ${it}`
      : `save ${it} first (Ctrl+S) to test ${it}`;
  if (origin.id === null || origin.revision === null) return { kind: 'unsaved', why: `The open route was never saved: ${ask('it')}.` };
  if (hasUnsavedChanges(context)) {
    const why = `The open route has unsaved changes: ${ask('them')}; a test now would run revision ${origin.revision}, not the route drawn.`;
    return { kind: 'unsaved', why };
  }
  return { kind: 'route', ref: `${origin.id}@${origin.revision}`, name: route.name };
}
