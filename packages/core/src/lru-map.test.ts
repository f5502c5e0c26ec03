import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LruMap } from './lru-map.ts';

type Op = { op: 'get' | 'set' | 'delete'; key: number; value: number } | { op: 'trim'; max: number } | { op: 'clear' };

describe('LruMap', () => {
  it('answers and orders as a list of entries moved to its end on every use, whatever the operations', () => {
    const key = fc.integer({ min: 0, max: 5 });
    // Mostly uses and sets, so that the map holds a few keys when it is trimmed or cleared.
    const op: fc.Arbitrary<Op> = fc.oneof(
      {
        weight: 12,
        arbitrary: fc.record({ op: fc.constantFrom('get' as const, 'set' as const, 'delete' as const), key, value: fc.nat() }),
      },
      { weight: 1, arbitrary: fc.record({ op: fc.constant('trim' as const), max: fc.integer({ min: 0, max: 4 }) }) },
      { weight: 1, arbitrary: fc.record({ op: fc.constant('clear' as const) }) },
    );
    fc.assert(
      fc.property(fc.array(op, { minLength: 10, maxLength: 80 }), (ops) => {
        const lru = new LruMap<number, number>();
        // The model: entries least recently used first, every use moving one to the end.
        let model: Array<[number, number]> = [];
        for (const o of ops) {
          if (o.op === 'get') {
            const found = model.find(([k]) => k === o.key);
            expect(lru.get(o.key)).toBe(found?.[1]);
            if (found) model = [...model.filter(([k]) => k !== o.key), found];
          } else if (o.op === 'set') {
            lru.set(o.key, o.value);
            model = [...model.filter(([k]) => k !== o.key), [o.key, o.value]];
          } else if (o.op === 'delete') {
            expect(lru.delete(o.key)).toBe(model.some(([k]) => k === o.key));
            model = model.filter(([k]) => k !== o.key);
          } else if (o.op === 'trim') {
            lru.trimTo(o.max);
            model = model.slice(Math.max(0, model.length - o.max));
          } else {
            lru.clear();
            model = [];
          }
          expect([...lru.entries()]).toEqual(model);
          expect(lru.size).toBe(model.length);
        }
      }),
      { numRuns: 500 },
    );
  });
});
