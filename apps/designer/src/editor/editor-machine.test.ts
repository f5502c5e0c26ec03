import { createActor, waitFor } from 'xstate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, startServer } from '../../../../tests/support/server-fixture.ts';
import type { RunningFixture } from '../../../../tests/support/server-fixture.ts';
import { createApiClient } from '../api/api-client.ts';
import type { ApiClient } from '../api/api-client.ts';
import { editorMachine, hasUnsavedChanges, selectedStepIds } from './editor-machine.ts';
import { blankRoute, stepIdProblem } from './route-edits.ts';

let fixture: RunningFixture;
let api: ApiClient;
beforeAll(async () => {
  fixture = await startServer({}, { designerDir: false });
  api = createApiClient({ baseUrl: fixture.url, credentials: { apiKey: API_KEY } });
});
afterAll(() => fixture.close());

const start = () => createActor(editorMachine, { input: { api } }).start();

/** Sends what a field sends while `text` is typed into it: one edit per keystroke, each with the text so far. */
const type = (text: string, send: (value: string) => void) => {
  for (let i = 1; i <= text.length; i++) send(text.slice(0, i));
};

describe('editor machine', () => {
  it('checks every edit with validateRoute and points at the offending step or edge', () => {
    const editor = start();
    editor.send({ type: 'NEW' });
    expect(editor.getSnapshot().context.problems).toEqual([]);
    editor.send({ type: 'ADD_STEP', channel: 'chatapp' });
    // Not connected: unreachable from the start.
    expect(editor.getSnapshot().context.problems).toEqual([
      expect.objectContaining({ path: 'steps[1]', target: { kind: 'step', id: 'chatapp' } }),
    ]);
    editor.send({ type: 'SET_START', id: 'chatapp' });
    editor.send({ type: 'CONNECT', from: 'chatapp', to: 'sms', on: 'undeliverable' });
    expect(editor.getSnapshot().context.problems).toEqual([]);
    // sms → chatapp closes a cycle; a second undeliverable edge from chatapp is a duplicate.
    editor.send({ type: 'CONNECT', from: 'sms', to: 'chatapp', on: 'expired' });
    editor.send({ type: 'CONNECT', from: 'chatapp', to: 'sms', on: 'undeliverable' });
    const problems = editor.getSnapshot().context.problems;
    expect(problems.map((p) => p.target)).toEqual(
      expect.arrayContaining([
        { kind: 'edge', index: 2 },
        { kind: 'step', id: 'sms' },
      ]),
    );
    expect(problems.map((p) => p.message).join('\n')).toMatch(/more than one 'undeliverable' edge[\s\S]*cycle/);
    // A route with problems is not saved.
    editor.send({ type: 'SAVE' });
    expect(editor.getSnapshot().value).toBe('editing');
    expect(editor.getSnapshot().context.error).toMatch(/Fix 2 problems/);
  });

  it('undoes and redoes edits, deletes steps with their edges, copies and pastes', () => {
    const editor = start();
    editor.send({ type: 'NEW' });
    editor.send({ type: 'ADD_STEP', channel: 'rcs' });
    editor.send({ type: 'CONNECT', from: 'sms', to: 'rcs', on: 'undeliverable' });
    editor.send({ type: 'DELETE', steps: ['rcs'], edges: [] });
    expect(editor.getSnapshot().context.route).toMatchObject({ steps: [{ id: 'sms' }], edges: [] });
    editor.send({ type: 'UNDO' });
    expect(editor.getSnapshot().context.route?.edges).toEqual([{ from: 'sms', to: 'rcs', on: 'undeliverable' }]);
    editor.send({ type: 'UNDO' });
    expect(editor.getSnapshot().context.route?.edges).toEqual([]);
    editor.send({ type: 'REDO' });
    expect(editor.getSnapshot().context.route?.edges).toHaveLength(1);
    editor.send({ type: 'COPY', ids: ['sms', 'rcs'] });
    editor.send({ type: 'PASTE' });
    const route = editor.getSnapshot().context.route;
    expect(route?.steps.map((s) => s.id)).toEqual(['sms', 'rcs', 'sms_2', 'rcs_2']);
    expect(route?.edges).toContainEqual({ from: 'sms_2', to: 'rcs_2', on: 'undeliverable' });
  });

  it('renames a step across its edges and the start, and lays the route out top-down', () => {
    const editor = start();
    editor.send({ type: 'NEW' });
    editor.send({ type: 'ADD_STEP', channel: 'flashcall' });
    editor.send({ type: 'CONNECT', from: 'sms', to: 'flashcall', on: 'expired' });
    editor.send({ type: 'UPDATE_STEP', id: 'sms', patch: { id: 'first', label: 'First try' } });
    editor.send({ type: 'LAYOUT' });
    const route = editor.getSnapshot().context.route;
    expect(route).toMatchObject({ start: 'first', edges: [{ from: 'first', to: 'flashcall', on: 'expired' }] });
    const [a, b] = route?.steps ?? [];
    expect((a?.position?.y ?? 0) < (b?.position?.y ?? 0)).toBe(true);
  });

  it('refuses edits to a built-in route until it is duplicated', async () => {
    const editor = start();
    const builtin = (await api.listRoutes()).find((r) => r.id === 'default');
    editor.send({ type: 'LOAD', route: builtin! });
    editor.send({ type: 'ADD_STEP', channel: 'sms' });
    expect(editor.getSnapshot().context.route?.steps).toHaveLength(5);
    editor.send({ type: 'DUPLICATE' });
    editor.send({ type: 'ADD_STEP', channel: 'flashcall' });
    expect(editor.getSnapshot().context).toMatchObject({
      origin: { id: null, builtin: false },
      route: { name: 'Copy of Default cascade' },
    });
    expect(editor.getSnapshot().context.route?.steps).toHaveLength(6);
  });

  it('saves with the revision and turns a stale revision into a conflict: reload theirs or overwrite', async () => {
    const editor = start();
    editor.send({ type: 'NEW' });
    editor.send({ type: 'RENAME', name: 'Conflicted' });
    editor.send({ type: 'SAVE' });
    await waitFor(editor, (s) => s.matches('editing') && s.context.origin.id !== null);
    const { id, revision } = editor.getSnapshot().context.origin;
    expect(revision).toBe(1);

    // Another tab stores revision 2.
    const stored = await api.getRoute(id!);
    await api.updateRoute(id!, { ...stored, name: 'Theirs' }, 1);

    editor.send({ type: 'ADD_STEP', channel: 'rcs' });
    editor.send({ type: 'CONNECT', from: 'sms', to: 'rcs', on: 'undeliverable' });
    editor.send({ type: 'SAVE' });
    await waitFor(editor, (s) => s.matches({ conflict: 'deciding' }));
    expect(editor.getSnapshot().context.theirs).toMatchObject({ name: 'Theirs', revision: 2 });

    editor.send({ type: 'OVERWRITE' });
    await waitFor(editor, (s) => s.matches('editing'));
    expect(editor.getSnapshot().context.origin.revision).toBe(3);
    expect(await api.getRoute(id!)).toMatchObject({ name: 'Conflicted', revision: 3, steps: [{ id: 'sms' }, { id: 'rcs' }] });

    await api.updateRoute(id!, { ...(await api.getRoute(id!)), name: 'Theirs again' }, 3);
    editor.send({ type: 'RENAME', name: 'Mine' });
    editor.send({ type: 'SAVE' });
    await waitFor(editor, (s) => s.matches({ conflict: 'deciding' }));
    editor.send({ type: 'RELOAD_THEIRS' });
    expect(editor.getSnapshot().context).toMatchObject({ route: { name: 'Theirs again' }, origin: { revision: 4 }, past: [] });
  });

  it('imports a route from JSON and keeps the draft id; rejects what is not a route', () => {
    const editor = start();
    editor.send({ type: 'NEW' });
    editor.send({ type: 'IMPORT', json: '{ nope' });
    expect(editor.getSnapshot().context.error).toBe('The file is not JSON');
    editor.send({ type: 'IMPORT', json: JSON.stringify({ name: 'x', start: 'a', steps: [], edges: [] }) });
    expect(editor.getSnapshot().context.error).toMatch(/^Not a route: steps/);
    editor.send({
      type: 'IMPORT',
      json: JSON.stringify({ id: 'other', name: 'Imported', start: 'a', steps: [{ id: 'a', channel: 'rcs' }], edges: [] }),
    });
    expect(editor.getSnapshot().context.route).toEqual({ name: 'Imported', start: 'a', steps: [{ id: 'a', channel: 'rcs' }], edges: [] });
  });

  it('refuses to rename a step to the id of another step (two steps shared one id)', () => {
    const editor = start();
    editor.send({ type: 'NEW' });
    editor.send({ type: 'ADD_STEP', channel: 'rcs' });
    editor.send({ type: 'CONNECT', from: 'sms', to: 'rcs', on: 'undeliverable' });
    const before = editor.getSnapshot().context.route;
    expect(stepIdProblem(before!, 'rcs', 'sms')).toBe("'sms' is already the id of another step");
    expect(stepIdProblem(before!, 'rcs', 'rcs')).toBeNull();
    expect(stepIdProblem(before!, 'rcs', 'mms')).toBeNull();

    editor.send({ type: 'SELECT', selection: { kind: 'step', id: 'rcs' } });
    editor.send({ type: 'UPDATE_STEP', id: 'rcs', patch: { id: 'sms' } });
    const { route, selection, past } = editor.getSnapshot().context;
    expect(route).toBe(before);
    expect(route?.steps.map((s) => s.id)).toEqual(['sms', 'rcs']);
    expect(selection).toEqual({ kind: 'step', id: 'rcs' });
    // Nothing to undo: the refused rename is not an edit.
    expect(past).toHaveLength(2);
    // Renaming the step to a free id still works, and only that step.
    editor.send({ type: 'UPDATE_STEP', id: 'rcs', patch: { id: 'rcs_first' } });
    expect(editor.getSnapshot().context.route).toMatchObject({
      start: 'sms',
      steps: [{ id: 'sms' }, { id: 'rcs_first' }],
      edges: [{ from: 'sms', to: 'rcs_first' }],
    });
  });

  it('does not save an unchanged route again (each no-op save stored a new revision)', async () => {
    const editor = start();
    editor.send({ type: 'NEW' });
    // A new route can be saved as it is.
    expect(editor.getSnapshot().can({ type: 'SAVE' })).toBe(true);
    editor.send({ type: 'SAVE' });
    await waitFor(editor, (s) => s.matches('editing') && s.context.origin.id !== null);
    const { id } = editor.getSnapshot().context.origin;
    expect(hasUnsavedChanges(editor.getSnapshot().context)).toBe(false);

    expect(editor.getSnapshot().can({ type: 'SAVE' })).toBe(false);
    editor.send({ type: 'SAVE' });
    expect(editor.getSnapshot().value).toBe('editing');
    expect(editor.getSnapshot().context.error).toBeNull();
    expect((await api.getRoute(id!)).revision).toBe(1);

    // An edit undone is no change either; an edit is.
    editor.send({ type: 'RENAME', name: 'Changed' });
    expect(hasUnsavedChanges(editor.getSnapshot().context)).toBe(true);
    editor.send({ type: 'UNDO' });
    expect(editor.getSnapshot().can({ type: 'SAVE' })).toBe(false);
    editor.send({ type: 'REDO' });
    editor.send({ type: 'SAVE' });
    await waitFor(editor, (s) => s.matches('editing') && s.context.origin.revision === 2);
    expect(await api.getRoute(id!)).toMatchObject({ name: 'Changed', revision: 2 });
  });

  it('deletes a saved route (the UI had no way to, though the API has one), never a built-in or a new draft', async () => {
    const editor = start();
    const deleted: string[] = [];
    editor.on('routeDeleted', (e) => deleted.push(e.id));
    const stored = await api.createRoute({ ...blankRoute('To delete') });
    editor.send({ type: 'LOAD', route: stored });
    editor.send({ type: 'DELETE_ROUTE' });
    await waitFor(editor, (s) => s.matches('idle'));
    expect(editor.getSnapshot().context).toMatchObject({ route: null, origin: { id: null } });
    expect(deleted).toEqual([stored.id]);
    expect((await api.listRoutes()).map((r) => r.id)).not.toContain(stored.id);

    const builtin = (await api.listRoutes()).find((r) => r.id === 'default');
    editor.send({ type: 'LOAD', route: builtin! });
    expect(editor.getSnapshot().can({ type: 'DELETE_ROUTE' })).toBe(false);
    editor.send({ type: 'NEW' });
    expect(editor.getSnapshot().can({ type: 'DELETE_ROUTE' })).toBe(false);
  });

  it('undoes a word typed into a field at once, not a keystroke at a time (each keystroke was its own undo step)', () => {
    const editor = start();
    const context = () => editor.getSnapshot().context;
    const label = () => context().route?.steps.find((s) => s.id === 'sms')?.label;
    const typeLabel = (id: string, text: string) =>
      type(text, (value) => editor.send({ type: 'UPDATE_STEP', id, patch: { label: value } }));
    editor.send({ type: 'NEW' });

    typeLabel('sms', 'hello');
    expect(label()).toBe('hello');
    expect(context().past).toHaveLength(1);
    editor.send({ type: 'UNDO' });
    expect(label()).toBeUndefined();
    editor.send({ type: 'REDO' });
    expect(label()).toBe('hello');

    // The route's name likewise; typing on after an undo or redo starts a new entry.
    type('Promo', (name) => editor.send({ type: 'RENAME', name: `New route${name}` }));
    expect(context().route?.name).toBe('New routePromo');
    editor.send({ type: 'UNDO' });
    expect(context().route).toMatchObject({ name: 'New route', steps: [{ label: 'hello' }] });
    typeLabel('sms', 'hello!');
    editor.send({ type: 'UNDO' });
    expect(label()).toBe('hello');

    // Another field, another element, an edit that is not typing, or another selection in between: a new entry each.
    editor.send({ type: 'ADD_STEP', channel: 'rcs' });
    typeLabel('sms', 'ab');
    typeLabel('rcs', 'cd');
    type('60', (t) => editor.send({ type: 'UPDATE_STEP', id: 'rcs', patch: { timeoutSeconds: Number(t) } }));
    typeLabel('sms', 'abc');
    editor.send({ type: 'CONNECT', from: 'sms', to: 'rcs', on: 'undeliverable' });
    typeLabel('sms', 'abcd');
    editor.send({ type: 'SELECT', selection: { kind: 'step', id: 'rcs' } });
    editor.send({ type: 'SELECT', selection: { kind: 'step', id: 'sms' } });
    typeLabel('sms', 'abcde');
    const undone: unknown[] = [];
    for (let i = 0; i < 8; i++) {
      editor.send({ type: 'UNDO' });
      const { route } = context();
      undone.push([route?.steps.map((s) => [s.id, s.label ?? '', s.timeoutSeconds ?? 0].join(':')).join(' '), route?.edges.length]);
    }
    expect(undone).toEqual([
      ['sms:abcd:0 rcs:cd:60', 1],
      ['sms:abc:0 rcs:cd:60', 1],
      ['sms:abc:0 rcs:cd:60', 0],
      ['sms:ab:0 rcs:cd:60', 0],
      ['sms:ab:0 rcs:cd:0', 0],
      ['sms:ab:0 rcs::0', 0],
      ['sms:hello:0 rcs::0', 0],
      ['sms:hello:0', 0],
    ]);
  });

  it('undoes the arrow-key moves of the same steps in a row at once, and a drop as one move', () => {
    const editor = start();
    const context = () => editor.getSnapshot().context;
    const at = () =>
      context()
        .route?.steps.map((s) => `${s.id}:${s.position?.x},${s.position?.y}`)
        .join(' ');
    editor.send({ type: 'NEW' });
    editor.send({ type: 'ADD_STEP', channel: 'rcs', position: { x: 0, y: 200 } });
    const nudge = (ids: string[], x: number) =>
      editor.send({ type: 'MOVE_STEPS', positions: Object.fromEntries(ids.map((id) => [id, { x, y: 0 }])), nudge: true });
    for (const x of [5, 10, 15]) nudge(['sms'], x);
    expect(at()).toBe('sms:15,0 rcs:0,200');
    nudge(['rcs', 'sms'], 20); // other steps: a new entry
    editor.send({ type: 'MOVE_STEPS', positions: { sms: { x: 100, y: 100 } } }); // a drop: an entry of its own
    nudge(['sms'], 105);
    nudge(['sms'], 110);
    const undone: unknown[] = [];
    for (let i = 0; i < 4; i++) {
      editor.send({ type: 'UNDO' });
      undone.push(at());
    }
    expect(undone).toEqual(['sms:100,100 rcs:20,0', 'sms:20,0 rcs:20,0', 'sms:15,0 rcs:0,200', 'sms:0,0 rcs:0,200']);
  });

  it('pastes a copy of several steps with the edges among them, and selects every pasted step', () => {
    const editor = start();
    editor.send({ type: 'NEW' });
    editor.send({ type: 'ADD_STEP', channel: 'rcs' });
    editor.send({ type: 'ADD_STEP', channel: 'flashcall' });
    editor.send({ type: 'CONNECT', from: 'sms', to: 'rcs', on: 'undeliverable' });
    editor.send({ type: 'CONNECT', from: 'rcs', to: 'flashcall', on: 'expired' });
    editor.send({ type: 'COPY', ids: ['sms', 'rcs'] });
    editor.send({ type: 'PASTE' });
    editor.send({ type: 'PASTE' });
    const { route, selection } = editor.getSnapshot().context;
    expect(route?.steps.map((s) => s.id)).toEqual(['sms', 'rcs', 'flashcall', 'sms_2', 'rcs_2', 'sms_3', 'rcs_3']);
    expect(route?.edges.slice(2)).toEqual([
      { from: 'sms_2', to: 'rcs_2', on: 'undeliverable' },
      { from: 'sms_3', to: 'rcs_3', on: 'undeliverable' },
    ]);
    expect(selection).toEqual({ kind: 'steps', ids: ['sms_3', 'rcs_3'] });
    expect(selectedStepIds(selection)).toEqual(['sms_3', 'rcs_3']);
    // One step pasted is the panel's one selection, as before.
    editor.send({ type: 'COPY', ids: ['flashcall'] });
    editor.send({ type: 'PASTE' });
    expect(editor.getSnapshot().context.selection).toEqual({ kind: 'step', id: 'flashcall_2' });
    expect(selectedStepIds(editor.getSnapshot().context.selection)).toEqual(['flashcall_2']);
  });
});
