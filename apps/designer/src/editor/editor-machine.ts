import { routeSchema } from '@spillway/core';
import type { ChannelId, Route, RouteEdge, RouteOutcome, RouteStep } from '@spillway/core';
import { assign, emit, fromPromise, setup } from 'xstate';
import type { ApiClient, RouteView } from '../api/api-client.ts';
import { ApiError } from '../api/api-client.ts';
import { describeError } from '../api/describe-error.ts';
import { autoLayout } from '../canvas/auto-layout.ts';
import { addStep, blankRoute, connect, copy, paste, remove, stepIdProblem, updateEdge, updateStep } from './route-edits.ts';
import { routeProblems } from './route-problems.ts';
import type { Problem } from './route-problems.ts';

/** What the side panel shows; `steps` is several steps at once (those just pasted). */
export type Selection = { kind: 'step'; id: string } | { kind: 'steps'; ids: string[] } | { kind: 'edge'; index: number } | null;

/** The ids of the steps a selection holds: none, one or several. */
export function selectedStepIds(selection: Selection): string[] {
  if (selection?.kind === 'step') return [selection.id];
  return selection?.kind === 'steps' ? selection.ids : [];
}

/** Where the draft came from: a stored route (id, revision), a built-in (read-only), or new. */
export interface DraftOrigin {
  id: string | null;
  revision: number | null;
  builtin: boolean;
}

export interface EditorContext {
  api: Pick<ApiClient, 'createRoute' | 'updateRoute' | 'getRoute' | 'deleteRoute'>;
  route: Route | null;
  origin: DraftOrigin;
  /** The draft as last loaded or saved: `route !== saved` means unsaved changes. */
  saved: Route | null;
  past: Route[];
  future: Route[];
  /**
   * The field the last edit typed into (`step:sms:label`, `route:name`), or null: the next
   * keystroke there joins that edit's undo entry, so Undo takes back a word, not a letter. The
   * arrow keys moving steps (`nudge:a,b`) join the same way.
   */
  typing: string | null;
  selection: Selection;
  problems: Problem[];
  clipboard: { steps: RouteStep[]; edges: RouteEdge[] } | null;
  /** The stored route that won a conflict. */
  theirs: RouteView | null;
  /** The last failure to tell the user (a refused save, a bad import). */
  error: string | null;
  /** Counts drafts opened (load, new, duplicate, reload): the canvas fits a newly opened one to the screen. */
  opens: number;
}

export type EditorEvent =
  | { type: 'LOAD'; route: RouteView }
  | { type: 'NEW' }
  | { type: 'DUPLICATE' }
  | { type: 'CLOSE' }
  | { type: 'ADD_STEP'; channel: ChannelId; position?: { x: number; y: number } }
  | { type: 'UPDATE_STEP'; id: string; patch: Partial<RouteStep> }
  /** `nudge`: one press of an arrow key; presses in a row on the same steps are one undo entry, as typing is. */
  | { type: 'MOVE_STEPS'; positions: Record<string, { x: number; y: number }>; nudge?: boolean }
  | { type: 'CONNECT'; from: string; to: string; on: RouteOutcome }
  | { type: 'UPDATE_EDGE'; index: number; patch: Partial<RouteEdge> }
  | { type: 'DELETE'; steps: string[]; edges: number[] }
  | { type: 'SET_START'; id: string }
  | { type: 'RENAME'; name: string }
  | { type: 'LAYOUT' }
  | { type: 'SELECT'; selection: Selection }
  | { type: 'COPY'; ids: string[] }
  | { type: 'PASTE' }
  | { type: 'IMPORT'; json: string }
  | { type: 'UNDO' }
  | { type: 'REDO' }
  | { type: 'SAVE' }
  | { type: 'DELETE_ROUTE' }
  | { type: 'RELOAD_THEIRS' }
  | { type: 'OVERWRITE' }
  | { type: 'DISMISS' };

/** What the editor tells its owner: a stored route was deleted (the route list drops it). */
export type EditorEmitted = { type: 'routeDeleted'; id: string };

/** Whether the draft differs from the route as last loaded or saved (a new, never saved draft counts as unsaved only once edited). */
export function hasUnsavedChanges(context: Pick<EditorContext, 'route' | 'saved' | 'origin'>): boolean {
  return context.route !== null && context.route !== context.saved && !context.origin.builtin;
}

/** Whether saving would store something: a valid draft that is new, or changed since it was loaded or saved. */
export function canSave(context: Pick<EditorContext, 'route' | 'saved' | 'origin' | 'problems'>): boolean {
  return (
    context.route !== null &&
    !context.origin.builtin &&
    context.problems.length === 0 &&
    (context.origin.id === null || hasUnsavedChanges(context))
  );
}

/** Undo steps kept. */
const HISTORY_LIMIT = 100;
const NO_ORIGIN: DraftOrigin = { id: null, revision: null, builtin: false };

/** Fields edited by typing into them, where each keystroke is an edit. */
const TYPED_STEP_FIELDS: ReadonlySet<string> = new Set(['label', 'timeoutSeconds']);
const TYPED_EDGE_FIELDS: ReadonlySet<string> = new Set(['afterSeconds']);

/** The typed field a patch of one element changes (`step:sms:label`), or null when it is not a keystroke in one field. */
function typedField(element: string, patch: object, typed: ReadonlySet<string>): string | null {
  const keys = Object.keys(patch);
  return keys.length === 1 && typed.has(keys[0] as string) ? `${element}:${keys[0]}` : null;
}

/**
 * The context after an edit: the old draft on the undo stack, the redo stack cleared, problems
 * rechecked. An edit typed into the same field as the one before (`field`) joins its undo entry,
 * as in a text editor; any other edit starts a new one.
 */
function edited(context: EditorContext, next: Route, field: string | null = null): Partial<EditorContext> {
  if (!context.route || next === context.route) return {};
  const joins = field !== null && field === context.typing && context.past.length > 0;
  return {
    route: next,
    past: joins ? context.past : [...context.past, context.route].slice(-HISTORY_LIMIT),
    future: [],
    typing: field,
    problems: routeProblems(next),
    error: null,
  };
}

/** The context of a freshly opened draft. */
function opened(context: EditorContext, route: Route, origin: DraftOrigin): Partial<EditorContext> {
  return {
    route,
    saved: route,
    origin,
    past: [],
    future: [],
    typing: null,
    selection: null,
    problems: routeProblems(route),
    theirs: null,
    error: null,
    opens: context.opens + 1,
  };
}

function withoutMeta(view: RouteView): Route {
  const { builtin: _b, createdAt: _c, updatedAt: _u, ...route } = view;
  return route;
}

/** `edited` with the next draft computed from the current one. */
const change = (context: EditorContext, apply: (route: Route) => Route, field: string | null = null): Partial<EditorContext> =>
  context.route ? edited(context, apply(context.route), field) : {};

const sameSelection = (a: Selection, b: Selection) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The designer's editor: one draft route, its undo/redo stacks, the selection, the problems core's
 * `validateRoute` finds after every change, and saving with the route's revision. A stale
 * revision is a `conflict` state with "reload theirs" or "overwrite", never a silent overwrite.
 * Built-in routes open read-only; `DUPLICATE` makes an editable copy. `DELETE_ROUTE` deletes the
 * stored route (the caller asks first) and emits `routeDeleted`.
 */
export const editorMachine = setup({
  types: {
    context: {} as EditorContext,
    events: {} as EditorEvent,
    input: {} as { api: EditorContext['api'] },
    emitted: {} as EditorEmitted,
  },
  actors: {
    save: fromPromise(
      async ({ input }: { input: { api: EditorContext['api']; route: Route; id: string | null; revision: number | null } }) =>
        input.id === null ? input.api.createRoute(input.route) : input.api.updateRoute(input.id, input.route, input.revision ?? 1),
    ),
    deleteRoute: fromPromise(async ({ input }: { input: { api: EditorContext['api']; id: string } }) => input.api.deleteRoute(input.id)),
    load: fromPromise(async ({ input }: { input: { api: EditorContext['api']; id: string } }) => input.api.getRoute(input.id)),
  },
  guards: {
    editable: ({ context }) => context.route !== null && !context.origin.builtin,
    /** A stored route of the account's own: built-ins and never saved drafts have nothing to delete. */
    deletable: ({ context }) => context.route !== null && context.origin.id !== null && !context.origin.builtin,
    canSave: ({ context }) => canSave(context),
    refusedSave: ({ context }) => context.origin.builtin || context.problems.length > 0,
    canUndo: ({ context }) => context.past.length > 0,
    canRedo: ({ context }) => context.future.length > 0,
    hasClipboard: ({ context }) => (context.clipboard?.steps.length ?? 0) > 0,
  },
}).createMachine({
  id: 'editor',
  context: ({ input }) => ({
    api: input.api,
    route: null,
    origin: NO_ORIGIN,
    saved: null,
    past: [],
    future: [],
    typing: null,
    selection: null,
    problems: [],
    clipboard: null,
    theirs: null,
    error: null,
    opens: 0,
  }),
  initial: 'idle',
  on: {
    LOAD: {
      target: '.editing',
      actions: assign(({ context, event }) =>
        opened(context, withoutMeta(event.route), { id: event.route.id, revision: event.route.revision, builtin: event.route.builtin }),
      ),
    },
    NEW: { target: '.editing', actions: assign(({ context }) => opened(context, blankRoute(), NO_ORIGIN)) },
    CLOSE: { target: '.idle', actions: assign({ route: null, saved: null, origin: NO_ORIGIN, problems: [], selection: null }) },
  },
  states: {
    idle: {},
    editing: {
      on: {
        DUPLICATE: {
          guard: ({ context }) => context.route !== null,
          actions: assign(({ context }) => {
            const { id: _id, revision: _rev, ...rest } = context.route as Route;
            return { ...opened(context, { ...rest, name: `Copy of ${rest.name}`.slice(0, 200) }, NO_ORIGIN), saved: null };
          }),
        },
        ADD_STEP: {
          guard: 'editable',
          actions: [
            assign(({ context, event: e }) => change(context, (r) => addStep(r, e.channel, e.position))),
            assign(({ context }) => ({ selection: { kind: 'step' as const, id: context.route?.steps.at(-1)?.id ?? '' } })),
          ],
        },
        UPDATE_STEP: {
          // An id taken by another step is refused (the step panel says why): steps stay distinct.
          guard: ({ context, event: e }) =>
            context.route !== null &&
            !context.origin.builtin &&
            (e.patch.id === undefined || stepIdProblem(context.route, e.id, e.patch.id) === null),
          actions: [
            assign(({ context, event: e }) =>
              change(context, (r) => updateStep(r, e.id, e.patch), typedField(`step:${e.id}`, e.patch, TYPED_STEP_FIELDS)),
            ),
            assign(({ context, event }) =>
              event.patch.id !== undefined && context.selection?.kind === 'step' && context.selection.id === event.id
                ? { selection: { kind: 'step' as const, id: event.patch.id } }
                : {},
            ),
          ],
        },
        MOVE_STEPS: {
          guard: 'editable',
          actions: assign(({ context, event: e }) =>
            change(
              context,
              (r) => ({
                ...r,
                steps: r.steps.map((s) => {
                  const p = e.positions[s.id];
                  return p ? { ...s, position: { x: Math.round(p.x), y: Math.round(p.y) } } : s;
                }),
              }),
              e.nudge ? `nudge:${Object.keys(e.positions).sort().join(',')}` : null,
            ),
          ),
        },
        CONNECT: {
          guard: 'editable',
          actions: [
            assign(({ context, event: e }) => change(context, (r) => connect(r, e.from, e.to, e.on))),
            assign(({ context }) => ({ selection: { kind: 'edge' as const, index: (context.route?.edges.length ?? 1) - 1 } })),
          ],
        },
        UPDATE_EDGE: {
          guard: 'editable',
          actions: assign(({ context, event: e }) =>
            change(context, (r) => updateEdge(r, e.index, e.patch), typedField(`edge:${e.index}`, e.patch, TYPED_EDGE_FIELDS)),
          ),
        },
        DELETE: {
          guard: 'editable',
          actions: [assign(({ context, event: e }) => change(context, (r) => remove(r, e.steps, e.edges))), assign({ selection: null })],
        },
        SET_START: { guard: 'editable', actions: assign(({ context, event: e }) => change(context, (r) => ({ ...r, start: e.id }))) },
        RENAME: {
          guard: 'editable',
          actions: assign(({ context, event: e }) => change(context, (r) => ({ ...r, name: e.name }), 'route:name')),
        },
        LAYOUT: { guard: 'editable', actions: assign(({ context }) => change(context, autoLayout)) },
        // Another selection ends the typing in a field: typing there again is a new undo entry.
        SELECT: {
          guard: ({ context, event }) => !sameSelection(context.selection, event.selection),
          actions: assign(({ event }) => ({ selection: event.selection, typing: null })),
        },
        COPY: { actions: assign(({ context, event }) => (context.route ? { clipboard: copy(context.route, event.ids) } : {})) },
        PASTE: {
          guard: ({ context }) => context.route !== null && !context.origin.builtin && (context.clipboard?.steps.length ?? 0) > 0,
          actions: assign(({ context }) => {
            const { route, ids } = paste(context.route as Route, context.clipboard as NonNullable<EditorContext['clipboard']>);
            // Every pasted step is selected: the next copy, drag or delete takes them all.
            const selection: Selection = ids.length > 1 ? { kind: 'steps', ids } : ids[0] ? { kind: 'step', id: ids[0] } : null;
            return { ...edited(context, route), selection };
          }),
        },
        IMPORT: {
          guard: 'editable',
          actions: assign(({ context, event }) => {
            let json: unknown;
            try {
              json = JSON.parse(event.json);
            } catch {
              return { error: 'The file is not JSON' };
            }
            const parsed = routeSchema.safeParse(json);
            if (!parsed.success) {
              return {
                error: `Not a route: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(route)'}: ${i.message}`).join('; ')}`,
              };
            }
            // The draft keeps its own id and revision: saving stores the import as its next revision.
            const { id: _id, revision: _rev, ...definition } = parsed.data;
            const current = context.route as Route;
            const next: Route = {
              ...definition,
              ...(current.id ? { id: current.id } : {}),
              ...(current.revision ? { revision: current.revision } : {}),
            };
            return { ...edited(context, next), selection: null };
          }),
        },
        UNDO: {
          guard: 'canUndo',
          actions: assign(({ context }) => {
            const previous = context.past[context.past.length - 1] as Route;
            return {
              route: previous,
              past: context.past.slice(0, -1),
              future: context.route ? [context.route, ...context.future] : context.future,
              typing: null,
              problems: routeProblems(previous),
            };
          }),
        },
        REDO: {
          guard: 'canRedo',
          actions: assign(({ context }) => {
            const next = context.future[0] as Route;
            return {
              route: next,
              future: context.future.slice(1),
              past: context.route ? [...context.past, context.route] : context.past,
              typing: null,
              problems: routeProblems(next),
            };
          }),
        },
        // An unchanged stored route is not saved again (it would only add an identical revision).
        SAVE: [
          { guard: 'canSave', target: 'saving' },
          {
            guard: 'refusedSave',
            actions: assign(({ context }) => ({
              error: context.origin.builtin
                ? 'Built-in routes are read-only: duplicate it to edit'
                : `Fix ${context.problems.length} problem${context.problems.length === 1 ? '' : 's'} before saving`,
            })),
          },
        ],
        DISMISS: { actions: assign({ error: null }) },
        DELETE_ROUTE: { guard: 'deletable', target: 'deleting' },
      },
    },
    deleting: {
      invoke: {
        src: 'deleteRoute',
        input: ({ context }) => ({ api: context.api, id: context.origin.id ?? '' }),
        onDone: {
          target: 'idle',
          actions: [
            emit(({ context }) => ({ type: 'routeDeleted' as const, id: context.origin.id ?? '' })),
            assign({
              route: null,
              saved: null,
              origin: NO_ORIGIN,
              problems: [],
              selection: null,
              past: [],
              future: [],
              typing: null,
              error: null,
            }),
          ],
        },
        onError: { target: 'editing', actions: assign(({ event }) => ({ error: describeError(event.error) })) },
      },
    },
    saving: {
      invoke: {
        src: 'save',
        input: ({ context }) => ({
          api: context.api,
          route: context.route as Route,
          id: context.origin.id,
          revision: context.origin.revision,
        }),
        onDone: {
          target: 'editing',
          actions: assign(({ context, event }) => {
            const route = { ...(context.route as Route), id: event.output.id, revision: event.output.revision };
            // Typing on after a save is a new undo entry: Undo goes back to what was saved first.
            return {
              route,
              saved: route,
              origin: { id: event.output.id, revision: event.output.revision, builtin: false },
              typing: null,
              error: null,
            };
          }),
        },
        onError: [
          { guard: ({ event }) => event.error instanceof ApiError && event.error.status === 409, target: 'conflict' },
          {
            target: 'editing',
            actions: assign(({ event }) => ({ error: describeError(event.error) })),
          },
        ],
      },
    },
    conflict: {
      initial: 'loading',
      states: {
        loading: {
          invoke: {
            src: 'load',
            input: ({ context }) => ({ api: context.api, id: context.origin.id ?? '' }),
            onDone: { target: 'deciding', actions: assign(({ event }) => ({ theirs: event.output })) },
            onError: {
              target: '#editor.editing',
              actions: assign(({ event }) => ({ error: describeError(event.error) })),
            },
          },
        },
        deciding: {
          on: {
            RELOAD_THEIRS: {
              target: '#editor.editing',
              actions: assign(({ context }) => {
                const theirs = context.theirs as RouteView;
                return opened(context, withoutMeta(theirs), { id: theirs.id, revision: theirs.revision, builtin: false });
              }),
            },
            // Ours over theirs: saved as the revision after theirs, so nothing is lost from the log.
            OVERWRITE: {
              target: '#editor.saving',
              actions: assign(({ context }) => ({
                origin: { ...context.origin, revision: context.theirs?.revision ?? context.origin.revision },
              })),
            },
            DISMISS: '#editor.editing',
          },
        },
      },
    },
  },
});
