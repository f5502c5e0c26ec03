import { describe, expect, it } from 'vitest';
import type { PersistedMachineState } from '../types/message.ts';
import type { WorkItem } from '../types/work.ts';
import { snapshotText, workText } from './message-rows.ts';

describe('commit columns', () => {
  it('writes each state as its JSON, the same text for the same state object', () => {
    const awaiting: PersistedMachineState = { value: { processing: 'awaiting' }, context: { step: 0, last: 0, retries: 0 } };
    const delivered: PersistedMachineState = { value: 'delivered', context: { step: 1, last: 1, retries: 2 } };
    expect(JSON.parse(snapshotText(awaiting))).toEqual(awaiting);
    expect(JSON.parse(snapshotText(delivered))).toEqual(delivered);
    expect(snapshotText(awaiting)).toBe(snapshotText(awaiting));
    // An equal state in another object gets the same text.
    expect(snapshotText({ ...delivered, context: { ...delivered.context } })).toBe(snapshotText(delivered));
  });

  it('writes work as JSON, the empty list included', () => {
    const work: WorkItem[] = [{ kind: 'event', event: { type: 'TIMER', step: 0, timer: 'expiry' }, dueAt: 5 }];
    expect(workText([])).toBe('[]');
    expect(JSON.parse(workText(work))).toEqual(work);
  });
});
