import { describe, expect, it } from 'vitest';
import { routeBindingFromRow, routeBindingKey, routeDefinitionJson } from './cascade-rows.ts';

describe('route bindings', () => {
  it('stores the account default as the empty alpha-name and reads it back as null', () => {
    expect(routeBindingKey(null)).toBe('');
    expect(routeBindingKey('Shop')).toBe('Shop');
    expect(routeBindingFromRow({ alpha_name: routeBindingKey(null), route_id: 'r' })).toEqual({ alphaName: null, routeId: 'r' });
    expect(routeBindingFromRow({ alpha_name: 'Shop', route_id: 'r' })).toEqual({ alphaName: 'Shop', routeId: 'r' });
  });
});

describe('routeDefinitionJson', () => {
  it('keeps only the graph: id and revision live in their columns', () => {
    const route = { id: 'x', revision: 3, name: 'n', start: 's', steps: [], edges: [] } as unknown as Parameters<
      typeof routeDefinitionJson
    >[0];
    expect(JSON.parse(routeDefinitionJson(route))).toEqual({ name: 'n', start: 's', steps: [], edges: [] });
  });
});
