import type { Route } from '@spillway/core';
import { describe, expect, it } from 'vitest';
import { EDGE_LABEL_SPACING, stepMeta, toEdges } from './flow-elements.ts';

describe('stepMeta', () => {
  it('shows a timeout of 0 as it is', () => {
    expect(stepMeta({ id: 'sms', channel: 'sms', timeoutSeconds: 0 })).toBe('timeout 0 s');
  });

  it('names no timeout it does not know (the ttl share), and a required session', () => {
    expect(stepMeta({ id: 'sms', channel: 'sms' })).toBe('');
    expect(stepMeta({ id: 'chatapp', channel: 'chatapp', requireSession: true })).toBe('session');
    expect(stepMeta({ id: 'sms', channel: 'sms', timeoutSeconds: 90, requireSession: true })).toBe('timeout 90 s · session');
  });
});

describe('toEdges', () => {
  const route = (edges: Route['edges']): Route => ({
    name: 'r',
    start: 'a',
    steps: [
      { id: 'a', channel: 'chatapp' },
      { id: 'b', channel: 'rcs' },
      { id: 'c', channel: 'sms' },
    ],
    edges,
  });
  const offsets = (r: Route) => toEdges(r, null, []).map((e) => e.data?.labelOffset);

  it('draws the label of a lone edge at its middle', () => {
    expect(offsets(route([{ from: 'a', to: 'b', on: 'undeliverable' }]))).toEqual([0]);
  });

  it('stacks the labels of parallel edges around the middle of the gap, one spacing apart', () => {
    const s = EDGE_LABEL_SPACING;
    expect(
      offsets(
        route([
          { from: 'a', to: 'b', on: 'undeliverable' },
          { from: 'a', to: 'c', on: 'undeliverable' },
          { from: 'a', to: 'b', on: 'expired' },
          { from: 'b', to: 'c', on: 'undeliverable' },
          { from: 'a', to: 'b', on: 'permanenterror' },
          { from: 'b', to: 'c', on: 'expired' },
        ]),
      ),
      // a→b three (above, at, below the middle), a→c alone, b→c two (half a spacing either side).
    ).toEqual([-s, 0, 0, -s / 2, s, s / 2]);
  });

  it('draws the labels of the outermost parallel edges beside them, outwards', () => {
    const sides = (r: Route) => toEdges(r, null, []).map((e) => e.data?.labelSide);
    expect(
      sides(
        route([
          { from: 'a', to: 'b', on: 'expired' },
          { from: 'a', to: 'c', on: 'undeliverable' },
          { from: 'a', to: 'b', on: 'undeliverable' },
          { from: 'a', to: 'b', on: 'permanenterror' },
        ]),
      ),
      // a→b by the handles undeliverable (leftmost), permanent error, expired (rightmost); a→c alone.
    ).toEqual([1, 0, -1, 0]);
  });
});
