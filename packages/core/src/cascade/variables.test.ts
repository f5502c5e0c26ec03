import { describe, expect, it } from 'vitest';
import { findVariables, isLinkValue, parseVariableUpload, resolveVariables } from './variables.ts';
import { SpillwayError } from '../errors.ts';

describe('variables', () => {
  it('finds every token with its kind and id, ignoring stray percent signs', () => {
    expect(findVariables('50% off, %name=first%! See %url=7% or %short_url=7%; %nope=1% %name=%')).toEqual([
      { kind: 'name', id: 'first', token: '%name=first%' },
      { kind: 'url', id: '7', token: '%url=7%' },
      { kind: 'short_url', id: '7', token: '%short_url=7%' },
    ]);
    expect(findVariables('plain')).toEqual([]);
  });

  it('resolves tokens through the lookup and leaves unknown ones as written', () => {
    const text = 'Hi %name=1%, go to %short_url=2% (%url=2%) %name=9%';
    const out = resolveVariables(text, (kind, id) => (id === '9' ? undefined : `${kind}:${id}`));
    expect(out).toBe('Hi name:1, go to short_url:2 (url:2) %name=9%');
  });

  it('accepts http(s) links only as link values', () => {
    expect(isLinkValue('https://example.com/a?b=1')).toBe(true);
    expect(isLinkValue('javascript:alert(1)')).toBe(false);
    expect(isLinkValue('not a url')).toBe(false);
  });

  it('parses both upload shapes, integer ids as text, the last repeat winning', () => {
    expect(
      parseVariableUpload({
        items: [
          { id: 1, value: 'a' },
          { id: 'x', value: 'b' },
          { id: '1', value: 'c' },
        ],
      }),
    ).toEqual([
      { id: '1', value: 'c' },
      { id: 'x', value: 'b' },
    ]);
    expect(parseVariableUpload([{ id: 2, value: 'https://e.com' }])).toEqual([{ id: '2', value: 'https://e.com' }]);
  });

  it('rejects bad items with their paths', () => {
    try {
      parseVariableUpload({ items: [{ id: 'ok', value: 'a' }, { id: 'has space', value: 'b' }, { id: 3 }] });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(SpillwayError);
      expect((e as SpillwayError).details?.map((d) => d.path)).toEqual(['items[1].id', 'items[2].value']);
    }
    expect(() => parseVariableUpload([])).toThrow(SpillwayError);
  });
});
