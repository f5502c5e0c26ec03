import { defaultRoute } from '@spillway/core';
import type { Route } from '@spillway/core';
import { describe, expect, it } from 'vitest';
import { testTarget } from './test-target.ts';

const route: Route = { name: 'SMS', start: 'sms', steps: [{ id: 'sms', channel: 'sms' }], edges: [] };
const stored = { id: 'rt_1', revision: 3, builtin: false };

describe('the route a test cascade runs', () => {
  it('is the open route at its saved revision, a built-in one included', () => {
    expect(testTarget({ route, saved: route, origin: stored, problems: [] })).toEqual({ kind: 'route', ref: 'rt_1@3', name: 'SMS' });
    const builtin = { id: 'default', revision: 1, builtin: true };
    expect(testTarget({ route: defaultRoute, saved: defaultRoute, origin: builtin, problems: [] })).toEqual({
      kind: 'route',
      ref: 'default@1',
      name: 'Default cascade',
    });
  });

  it('is the alpha-name’s binding while no route is open', () => {
    expect(testTarget({ route: null, saved: null, origin: { id: null, revision: null, builtin: false }, problems: [] })).toEqual({
      kind: 'binding',
    });
  });

  it('asks to save first a route with unsaved changes or never saved, rather than test another revision', () => {
    const edited = { ...route, name: 'SMS!' };
    const unsaved = testTarget({ route: edited, saved: route, origin: stored, problems: [] });
    expect(unsaved).toMatchObject({ kind: 'unsaved', why: expect.stringMatching(/unsaved changes: save them first.*revision 3/) });
    const fresh = testTarget({ route, saved: route, origin: { id: null, revision: null, builtin: false }, problems: [] });
    expect(fresh).toMatchObject({ kind: 'unsaved', why: expect.stringMatching(/never saved: save it first/) });
    const broken = testTarget({ route: edited, saved: route, origin: stored, problems: [{ message: 'x' }, { message: 'y' }] as never });
    expect(broken).toMatchObject({ kind: 'unsaved', why: expect.stringMatching(/fix its 2 problems in Edit/) });
  });
});
