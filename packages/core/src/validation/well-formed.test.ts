import { describe, expect, it } from 'vitest';
import { wellFormed, wellFormedDeep } from './well-formed.ts';

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
