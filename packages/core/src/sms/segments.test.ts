import { describe, expect, it } from 'vitest';
import { countSegments } from './segments.ts';

describe('countSegments', () => {
  it('counts an empty text as one GSM-7 part', () => {
    expect(countSegments('')).toEqual({ encoding: 'GSM-7', units: 0, parts: 1 });
  });

  it('keeps 160 GSM septets in one part and splits 161 into two', () => {
    expect(countSegments('a'.repeat(160))).toEqual({ encoding: 'GSM-7', units: 160, parts: 1 });
    expect(countSegments('a'.repeat(161))).toEqual({ encoding: 'GSM-7', units: 161, parts: 2 });
    expect(countSegments('a'.repeat(306)).parts).toBe(2);
    expect(countSegments('a'.repeat(307)).parts).toBe(3);
  });

  it('accepts the whole GSM 03.38 basic alphabet, Greek capitals included', () => {
    const text = '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./09:;<=>?¡AZÄÖÑÜ§¿azäöñüà';
    expect(countSegments(text)).toEqual({ encoding: 'GSM-7', units: text.length, parts: 1 });
  });

  it('counts every extension character as two septets', () => {
    for (const ch of ['^', '{', '}', '\\', '[', '~', ']', '|', '€', '\f']) {
      expect(countSegments(ch)).toEqual({ encoding: 'GSM-7', units: 2, parts: 1 });
    }
    expect(countSegments('€'.repeat(80))).toEqual({ encoding: 'GSM-7', units: 160, parts: 1 });
    expect(countSegments('€'.repeat(80) + 'a').parts).toBe(2);
  });

  it('does not split an escaped character across parts', () => {
    // 152 septets then '€' (2) would straddle the 153 boundary: it moves to part two.
    const text = 'a'.repeat(152) + '€' + 'a'.repeat(152);
    expect(countSegments(text)).toEqual({ encoding: 'GSM-7', units: 306, parts: 3 });
    // Without the escape the same number of septets fits two parts.
    expect(countSegments('a'.repeat(306)).parts).toBe(2);
    // The escape exactly filling part one is fine.
    expect(countSegments('a'.repeat(151) + '€' + 'a'.repeat(153)).parts).toBe(2);
  });

  it('switches to UCS-2 for any non-GSM character', () => {
    expect(countSegments('привет')).toEqual({ encoding: 'UCS-2', units: 6, parts: 1 });
    expect(countSegments('ç')).toEqual({ encoding: 'UCS-2', units: 1, parts: 1 });
    expect(countSegments('a'.repeat(200) + '`').encoding).toBe('UCS-2');
  });

  it('keeps 70 UCS-2 units in one part and splits 71 into two', () => {
    expect(countSegments('я'.repeat(70))).toEqual({ encoding: 'UCS-2', units: 70, parts: 1 });
    expect(countSegments('я'.repeat(71))).toEqual({ encoding: 'UCS-2', units: 71, parts: 2 });
    expect(countSegments('я'.repeat(134)).parts).toBe(2);
    expect(countSegments('я'.repeat(135)).parts).toBe(3);
  });

  it('counts an emoji as two units', () => {
    expect(countSegments('😀')).toEqual({ encoding: 'UCS-2', units: 2, parts: 1 });
    expect(countSegments('😀'.repeat(35))).toEqual({ encoding: 'UCS-2', units: 70, parts: 1 });
    expect(countSegments('😀'.repeat(36))).toEqual({ encoding: 'UCS-2', units: 72, parts: 2 });
  });

  it('does not split a surrogate pair across parts', () => {
    // 66 units then an emoji would straddle the 67 boundary: it opens part two.
    const text = 'я'.repeat(66) + '😀' + 'я'.repeat(66);
    expect(countSegments(text)).toEqual({ encoding: 'UCS-2', units: 134, parts: 3 });
    expect(countSegments('я'.repeat(134)).parts).toBe(2);
    // An emoji ending exactly at unit 67 fits.
    expect(countSegments('я'.repeat(65) + '😀' + 'я'.repeat(67)).parts).toBe(2);
  });

  it('counts a lone surrogate as one unit', () => {
    expect(countSegments('\ud83d'.repeat(71))).toEqual({ encoding: 'UCS-2', units: 71, parts: 2 });
  });
});
