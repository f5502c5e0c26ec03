import { describe, expect, it } from 'vitest';
import { assertValidRoute, validateRoute } from './validate-route.ts';
import { defaultRoute, flashcallRoute, messengerFirstRoute } from './builtin-routes.ts';
import { SpillwayError } from '../errors.ts';
import type { Route } from '../types/route.ts';

const base: Route = {
  name: 'r',
  start: 'a',
  steps: [
    { id: 'a', channel: 'chatapp' },
    { id: 'b', channel: 'rcs' },
    { id: 'c', channel: 'sms' },
  ],
  edges: [
    { from: 'a', to: 'b', on: 'undeliverable' },
    { from: 'b', to: 'c', on: 'expired' },
  ],
};

describe('validateRoute', () => {
  it('accepts the built-in routes and a valid graph', () => {
    expect(validateRoute(defaultRoute)).toEqual([]);
    expect(validateRoute(messengerFirstRoute)).toEqual([]);
    expect(validateRoute(flashcallRoute)).toEqual([]);
    expect(validateRoute(base)).toEqual([]);
  });

  it('names an unknown start, duplicate ids and edges to unknown steps', () => {
    expect(validateRoute({ ...base, start: 'x' })).toContainEqual({ path: 'start', message: expect.stringContaining("'x'") });
    const dup = validateRoute({ ...base, steps: [...base.steps, { id: 'b', channel: 'sms' }] });
    expect(dup).toContainEqual({ path: 'steps[3].id', message: "duplicate step id 'b'" });
    const edges = validateRoute({ ...base, edges: [...base.edges, { from: 'q', to: 'z', on: 'permanenterror' }] });
    expect(edges.map((e) => e.path)).toEqual(['edges[2].from', 'edges[2].to']);
    expect(edges[1]?.message).toContain("'z'");
  });

  it('names unreachable steps', () => {
    const errors = validateRoute({ ...base, edges: [base.edges[0]!] });
    expect(errors).toEqual([{ path: 'steps[2]', message: "step 'c' is not reachable from the start 'a'" }]);
  });

  it('rejects any cycle, naming a step on it', () => {
    const errors = validateRoute({ ...base, edges: [...base.edges, { from: 'c', to: 'b', on: 'undeliverable' }] });
    expect(errors).toHaveLength(1);
    expect(errors[0]?.path).toBe('steps[1]');
    expect(errors[0]?.message).toContain('b → c');
    expect(validateRoute({ ...base, edges: [...base.edges, { from: 'a', to: 'a', on: 'expired' }] })[0]?.message).toContain(
      "'a' is on a cycle",
    );
  });

  it('rejects two edges on one outcome and misplaced or missing afterSeconds', () => {
    const twice = validateRoute({ ...base, edges: [...base.edges, { from: 'a', to: 'c', on: 'undeliverable' }] });
    expect(twice).toEqual([{ path: 'edges[2].on', message: "step 'a' has more than one 'undeliverable' edge" }]);
    const noAfter = validateRoute({ ...base, edges: [...base.edges, { from: 'a', to: 'c', on: 'not_read' }] });
    expect(noAfter.map((e) => e.path)).toEqual(['edges[2].afterSeconds']);
    const smsRead = validateRoute({
      ...base,
      steps: [...base.steps, { id: 'd', channel: 'rcs' }],
      edges: [...base.edges, { from: 'c', to: 'd', on: 'not_read', afterSeconds: 60 }],
    });
    expect(smsRead).toEqual([{ path: 'edges[2].on', message: expect.stringContaining("'c' (sms) never reports a read") }]);
    const misplaced = validateRoute({ ...base, edges: [{ ...base.edges[0]!, afterSeconds: 5 }, base.edges[1]!] });
    expect(misplaced.map((e) => e.path)).toEqual(['edges[0].afterSeconds']);
  });
});

describe('assertValidRoute', () => {
  it('answers the parsed route', () => {
    expect(assertValidRoute(base)).toEqual(base);
  });

  it('throws validation_failed with path-addressed details, for shapes and graphs alike', () => {
    const shape = (() => {
      try {
        assertValidRoute({ name: 'x', start: 'a', steps: [{ id: 'a', channel: 'pigeon' }], edges: [{ from: 'a', to: 'b', on: 'lost' }] });
      } catch (e) {
        return e;
      }
    })();
    expect(shape).toBeInstanceOf(SpillwayError);
    expect((shape as SpillwayError).code).toBe('validation_failed');
    expect((shape as SpillwayError).details?.map((d) => d.path)).toEqual(['steps[0].channel', 'edges[0].on']);
    expect(() => assertValidRoute({ ...base, start: 'zz' })).toThrow(/invalid/);
    expect(() => assertValidRoute({ ...base, steps: [{ id: 'has space', channel: 'sms' }] })).toThrow(SpillwayError);
  });

  it('tells a step timeout or a not_read wait out of bounds once per field, with the bounds', () => {
    const detailsOf = (input: unknown) => {
      try {
        assertValidRoute(input);
      } catch (e) {
        return (e as SpillwayError).details;
      }
      throw new Error('expected the route to be refused');
    };
    const bounds = 'must be whole seconds from 1 to 2592000 (30 days)';
    const chat = { ...base, edges: [...base.edges, { from: 'a', to: 'b', on: 'not_read' }] };
    // 1e308 also broke zod's safe-integer bound, and came out as two messages for one field.
    for (const seconds of [1e308, 2 ** 53, 30 * 86400 + 1, 1.5, 0, -1]) {
      const steps = base.steps.map((step) => (step.id === 'b' ? { ...step, timeoutSeconds: seconds } : step));
      const edges = chat.edges.map((edge) => (edge.on === 'not_read' ? { ...edge, afterSeconds: seconds } : edge));
      expect(detailsOf({ ...chat, steps, edges })).toEqual([
        { path: 'steps[1].timeoutSeconds', message: bounds },
        { path: 'edges[2].afterSeconds', message: bounds },
      ]);
    }
    const steps = base.steps.map((step) => (step.id === 'b' ? { ...step, timeoutSeconds: '60' } : step));
    expect(detailsOf({ ...base, steps })).toEqual([{ path: 'steps[1].timeoutSeconds', message: bounds }]);
  });

  it('refuses requireSession on SMS and flash-call steps, which have no chat session', () => {
    const steps = base.steps.map((step) => (step.id === 'c' ? { ...step, requireSession: true } : step));
    expect(validateRoute({ ...base, steps })).toEqual([{ path: 'steps[2].requireSession', message: expect.stringContaining("'c' (sms)") }]);
    const chat = base.steps.map((step) => (step.id === 'a' ? { ...step, requireSession: true } : step));
    expect(validateRoute({ ...base, steps: chat })).toEqual([]);
  });

  it('accepts step ids that are Object.prototype names (they are labels, not state names)', () => {
    const odd: Route = {
      name: 'odd',
      start: '__proto__',
      steps: [
        { id: '__proto__', channel: 'chatapp' },
        { id: 'constructor', channel: 'sms' },
      ],
      edges: [{ from: '__proto__', to: 'constructor', on: 'undeliverable' }],
    };
    expect(assertValidRoute(odd).steps.map((step) => step.id)).toEqual(['__proto__', 'constructor']);
  });
});
