import { describe, expect, it } from 'vitest';
import { inRouteOrder, routeOrder } from './route-order.ts';

describe('routeOrder', () => {
  it('lists the start first and the steps along the edges, whatever order they are stored in', () => {
    const route = {
      start: 'chatapp',
      steps: [
        { id: 'sms', channel: 'sms' as const },
        { id: 'rcs', channel: 'rcs' as const },
        { id: 'chatapp', channel: 'chatapp' as const },
        { id: 'lost', channel: 'flashcall' as const },
      ],
      edges: [
        { from: 'rcs', to: 'sms', on: 'undeliverable' as const },
        { from: 'chatapp', to: 'rcs', on: 'undeliverable' as const },
        { from: 'chatapp', to: 'sms', on: 'expired' as const },
      ],
    };
    expect(routeOrder(route)).toEqual(['chatapp', 'rcs', 'sms', 'lost']);
    expect(inRouteOrder(route.steps, routeOrder(route)).map((s) => s.id)).toEqual(['chatapp', 'rcs', 'sms', 'lost']);
  });

  it('keeps items of unknown ids after the known ones, in their order', () => {
    expect(inRouteOrder([{ id: 'x' }, { id: 'b' }, { id: 'y' }, { id: 'a' }], ['a', 'b']).map((s) => s.id)).toEqual(['a', 'b', 'x', 'y']);
  });
});
