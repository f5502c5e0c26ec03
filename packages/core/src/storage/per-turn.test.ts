import { describe, expect, it } from 'vitest';
import { perTurn } from './per-turn.ts';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('perTurn', () => {
  it('reads once per key in a turn of the event loop, and again in the next turn', async () => {
    let reads = 0;
    const memo = perTurn((key: string) => `${key}:${++reads}`);
    expect(memo.get('a')).toBe('a:1');
    expect(memo.get('a')).toBe('a:1');
    expect(memo.get('b')).toBe('b:2');
    await Promise.resolve(); // microtasks stay in the turn
    expect(memo.get('a')).toBe('a:1');
    await nextTurn();
    expect(memo.get('a')).toBe('a:3');
  });

  it('reads again after clear, and without the memo while bypassed', () => {
    let reads = 0;
    let inTransaction = false;
    const memo = perTurn(() => ++reads, { bypass: () => inTransaction });
    expect(memo.get(1)).toBe(1);
    memo.clear();
    expect(memo.get(1)).toBe(2);
    inTransaction = true;
    expect(memo.get(1)).toBe(3);
    expect(memo.get(1)).toBe(4);
  });

  it('shares a pending read, and keeps no read that failed', async () => {
    let reads = 0;
    let fail = false;
    const memo = perTurn(async (key: string) => {
      reads++;
      if (fail) throw new Error('down');
      return `${key}:${reads}`;
    });
    expect(await Promise.all([memo.get('a'), memo.get('a')])).toEqual(['a:1', 'a:1']);
    await nextTurn();
    fail = true;
    await expect(memo.get('a')).rejects.toThrow('down');
    fail = false;
    // The same turn: the failed read was dropped, not kept.
    expect(await memo.get('a')).toBe('a:3');
  });
});
