import { describe, expect, it } from 'vitest';
import { markWellFormed, wellFormed, wellFormedCopy, wellFormedDeep } from './well-formed.ts';

describe('wellFormed', () => {
  it('replaces each lone surrogate with U+FFFD and keeps surrogate pairs', () => {
    expect(wellFormed('a\ud800b\udc00c')).toBe('a\uFFFDb\uFFFDc');
    expect(wellFormed('\udc00\ud800')).toBe('\uFFFD\uFFFD');
    expect(wellFormed('end \ud83d')).toBe('end \uFFFD');
    expect(wellFormed('pair \ud83d\ude00')).toBe('pair \u{1F600}');
    expect(wellFormed('plain')).toBe('plain');
  });

  it('keeps the length in UTF-16 units, so a length check made before still holds', () => {
    const text = 'x\ud800'.repeat(100);
    expect(wellFormed(text)).toHaveLength(text.length);
  });
});

describe('wellFormedDeep', () => {
  it('makes every string of parsed JSON well-formed, at any depth, in arrays too', () => {
    const parsed = JSON.parse('{"a":"x\\ud800","b":[{"c":"\\udc00"},"ok \\ud83d\\ude00"],"n":1,"z":null}') as unknown;
    expect(wellFormedDeep(parsed)).toEqual({ a: 'x\uFFFD', b: [{ c: '\uFFFD' }, 'ok \u{1F600}'], n: 1, z: null });
    expect(wellFormedDeep('\ud800')).toBe('\uFFFD');
  });
});

describe('wellFormedDeep: member names', () => {
  it('makes a member name well-formed too, keeping the members in their order', () => {
    const parsed = JSON.parse('{"a":1,"k\\ud800":2,"z":{"\\udc00":"v"}}') as Record<string, unknown>;
    expect(Object.entries(wellFormedDeep(parsed) as object)).toEqual([
      ['a', 1],
      ['k\uFFFD', 2],
      ['z', { '\uFFFD': 'v' }],
    ]);
  });
});

describe('wellFormedCopy', () => {
  it('answers the value itself when every string and member name is well-formed', () => {
    const value = { text: 'pair \u{1F600}', list: ['a', { b: 'c' }], n: 1 };
    expect(wellFormedCopy(value)).toBe(value);
    expect(wellFormedCopy('plain')).toBe('plain');
    expect(wellFormedCopy(5)).toBe(5);
  });

  it('answers a copy with U+FFFD for each lone surrogate, in strings and member names, and leaves the caller’s value as it was', () => {
    const date = new Date(0);
    const value = { text: 'a\ud800', list: ['ok', { ['k\udc00']: 'v\udc00' }], date, same: { x: 'y' } };
    const copy = wellFormedCopy(value);
    expect(copy).toEqual({ text: 'a\uFFFD', list: ['ok', { 'k\uFFFD': 'v\uFFFD' }], date, same: { x: 'y' } });
    expect(copy.date).toBe(date);
    expect(value.text).toBe('a\ud800');
    expect(value.list[1]).toEqual({ ['k\udc00']: 'v\udc00' });
    expect(wellFormedCopy('\udc00x')).toBe('\uFFFDx');
  });

  it('leaves what is not plain data alone, and does not walk a value that refers to itself forever', () => {
    const map = new Map([['k', '\ud800']]);
    expect(wellFormedCopy(map)).toBe(map);
    const loop: Record<string, unknown> = { text: 'ok' };
    loop['self'] = loop;
    expect(wellFormedCopy(loop)).toBe(loop);
  });

  it('takes data marked well-formed (a parsed HTTP body) as it is', () => {
    const marked = markWellFormed({ text: 'a\ud800' });
    expect(wellFormedCopy(marked)).toBe(marked);
    expect(markWellFormed('x')).toBe('x');
  });
});
