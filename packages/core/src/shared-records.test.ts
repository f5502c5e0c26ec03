import fc from 'fast-check';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { SharedRecords } from './shared-records.ts';

/** A record of one field, a counter; never idle (so only a full window evicts). */
const counters = (buffer: SharedArrayBuffer) => new SharedRecords(buffer, 1, () => false);
const bump = (records: SharedRecords, key: string, now = 0) =>
  records.update(
    key,
    now,
    (values, at) => {
      values[at] = 0;
    },
    ({ values, at }) => ++values[at]!,
  );

describe('SharedRecords', () => {
  it('keeps a record per key, as a Map would while the table has room', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 6 }), { maxLength: 300 }), (keys) => {
        const records = counters(SharedRecords.buffer(400, 1));
        const model = new Map<string, number>();
        for (const key of keys) {
          const expected = (model.get(key) ?? 0) + 1;
          model.set(key, expected);
          expect(bump(records, key)).toBe(expected);
        }
        for (const [key, count] of model) expect(records.peek(key, (r) => (r ? r.values[r.at] : undefined))).toBe(count);
        expect(records.size(0)).toBe(model.size);
      }),
    );
  });

  it('makes a record with init on its first update and keeps it on the next, and peek makes none', () => {
    const records = counters(SharedRecords.buffer(10, 1));
    expect(records.peek('a', (r) => r)).toBeNull();
    const init = (values: Float64Array, at: number) => {
      values[at] = 7;
    };
    expect(records.update('a', 0, init, (r) => (r.values[r.at] = r.values[r.at]! + 1))).toBe(8);
    expect(records.update('a', 0, init, (r) => r.values[r.at])).toBe(8);
    expect(records.size(0)).toBe(1);
  });

  it('stays within its buffer: a full neighbourhood gives its least recently used slot to a new key', () => {
    const buffer = SharedRecords.buffer(8, 1); // 16 slots: one window
    const records = counters(buffer);
    for (let i = 0; i < 16; i++) bump(records, `k${i}`, i);
    expect(records.size(0)).toBe(16);
    bump(records, 'k0', 100); // k0 used again: k1 is now the oldest
    bump(records, 'new', 101);
    expect(records.size(0)).toBe(16);
    expect(records.peek('k1', (r) => r)).toBeNull();
    expect(records.peek('k0', (r) => r?.values[r.at])).toBe(2);
    expect(records.peek('new', (r) => r?.values[r.at])).toBe(1);
  });

  it('gives an idle record’s slot to a new key before evicting a live one', () => {
    const buffer = SharedRecords.buffer(8, 1);
    // A record is idle once its counter is back to zero.
    const records = new SharedRecords(buffer, 1, (values, at) => values[at] === 0);
    const set = (key: string, value: number, now: number) =>
      records.update(
        key,
        now,
        () => {},
        ({ values, at }) => {
          values[at] = value;
        },
      );
    for (let i = 0; i < 16; i++) set(`k${i}`, 1, i);
    set('k5', 0, 50); // idle, though used after k0
    set('new', 1, 51);
    expect(records.peek('k5', (r) => r)).toBeNull();
    expect(records.peek('k0', (r) => r?.values[r.at])).toBe(1);
  });

  it('loses no update when threads change one record at once', async () => {
    const buffer = SharedRecords.buffer(16, 1);
    const url = new URL('./shared-records.ts', import.meta.url).href;
    // Each thread bumps the same key 20,000 times, through its own view of the buffer (the
    // module loaded through tsx, whose loader a worker thread registers itself).
    const tsx = import.meta.resolve('tsx/esm/api');
    const code = `
      const { workerData, parentPort } = require('node:worker_threads');
      import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(url)}); }).then(({ SharedRecords }) => {
        const records = new SharedRecords(workerData, 1, () => false);
        for (let i = 0; i < 20000; i++) records.update('shared', i, (v, at) => { v[at] = 0; }, ({ values, at }) => ++values[at]);
        parentPort.postMessage('done');
      });`;
    const threads = [0, 1, 2].map(() => new Worker(code, { eval: true, workerData: buffer }));
    await Promise.all(threads.map((t) => new Promise((resolve, reject) => (t.once('message', resolve), t.once('error', reject)))));
    await Promise.all(threads.map((t) => t.terminate()));
    expect(counters(buffer).peek('shared', (r) => r?.values[r.at])).toBe(60_000);
  }, 30_000);
});
