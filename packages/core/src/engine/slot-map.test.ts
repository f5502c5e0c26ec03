import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SlotMap } from './slot-map.ts';

type Op = { kind: 'set'; key: number; value: string } | { kind: 'delete'; key: number };

describe('SlotMap', () => {
  it('answers as a Map does, in the same order, through any run of sets and deletes', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), key: fc.integer({ min: 0, max: 20 }), value: fc.string() }),
      fc.record({ kind: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 20 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops: Op[]) => {
        const map = new Map<number, string>();
        const slots = new SlotMap<string>();
        for (const o of ops) {
          if (o.kind === 'set') {
            map.set(o.key, o.value);
            slots.set(o.key, o.value);
          } else {
            expect(slots.delete(o.key)).toBe(map.delete(o.key));
          }
          expect(slots.size).toBe(map.size);
        }
        expect([...slots.keys()]).toEqual([...map.keys()]);
        expect([...slots.values()]).toEqual([...map.values()]);
        for (let key = 0; key <= 20; key++) {
          expect(slots.has(key)).toBe(map.has(key));
          expect(slots.get(key)).toBe(map.get(key));
        }
      }),
    );
  });

  it('reuses a freed slot and lets its value go', () => {
    const slots = new SlotMap<object>();
    slots.set(1, { a: 1 });
    slots.set(2, { b: 2 });
    slots.delete(1);
    const inside = (slots as unknown as { slots: unknown[] }).slots;
    expect(inside).toEqual([undefined, { b: 2 }]);
    slots.set(3, { c: 3 });
    expect(inside).toEqual([{ c: 3 }, { b: 2 }]);
    expect([...slots.keys()]).toEqual([2, 3]);
  });
});
