import { describe, expect, it } from 'vitest';
import { BUILTIN_ROUTES } from './builtin-routes.ts';

describe('BUILTIN_ROUTES', () => {
  it('holds only its own routes: no id inherited from Object is a built-in route', () => {
    for (const id of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']) expect(BUILTIN_ROUTES[id]).toBeUndefined();
    expect(BUILTIN_ROUTES['default']?.id).toBe('default');
    expect(Object.isFrozen(BUILTIN_ROUTES)).toBe(true);
  });
});
