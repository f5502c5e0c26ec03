/** Answers of {@link perTurn}: `get` reads through the memo, `clear` forgets it (after a write). */
export interface PerTurnMemo<K, V> {
  get(key: K): V;
  clear(): void;
}

/** Runs `fn` once the current turn's I/O callbacks have run (`setImmediate`; a timer elsewhere). */
export const afterTurn = (fn: () => void): void => {
  const immediate = (globalThis as { setImmediate?: (fn: () => void) => unknown }).setImmediate;
  if (immediate) immediate(fn);
  else setTimeout(fn, 0);
};

/**
 * Memoizes a storage read for the rest of the current turn of the event loop. The requests
 * handled in one turn arrived together, before it began: they share one read, and the memo is
 * forgotten before the next turn, so a change another connection or process committed before a
 * turn began is seen by every read of that turn. A writer through the same handle calls `clear`.
 * A read answered as a promise that rejects is not kept; `bypass` (a transaction is open, say)
 * reads without the memo.
 */
export function perTurn<K, V>(read: (key: K) => V, options: { bypass?: () => boolean } = {}): PerTurnMemo<K, V> {
  let memo: Map<K, V> | null = null;
  return {
    get(key) {
      if (options.bypass?.()) return read(key);
      if (memo?.has(key)) return memo.get(key) as V;
      if (!memo) {
        const turn = (memo = new Map());
        afterTurn(() => {
          if (memo === turn) memo = null;
        });
      }
      const turn = memo;
      const value = read(key);
      turn.set(key, value);
      if (value instanceof Promise) value.catch(() => turn.get(key) === value && turn.delete(key));
      return value;
    },
    clear() {
      memo = null;
    },
  };
}
