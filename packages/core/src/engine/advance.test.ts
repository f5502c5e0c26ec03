import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMachine } from 'xstate';
import type { FailureClass } from '../types/channel.ts';
import type { MachineEvent, TimerName } from '../machines/events.ts';
import { messageMachine } from '../machines/message-machine.ts';
import { BUILTIN_ROUTES } from '../routes/builtin-routes.ts';
import { compileRoute } from '../machines/cascade-machine.ts';
import { MachineAdvancer } from './advance.ts';
import type { PersistedMachineState } from '../types/message.ts';

const failure = fc.constantFrom<FailureClass>('throttled', 'temporary', 'not_on_channel', 'undeliverable', 'permanent');
const event: fc.Arbitrary<MachineEvent> = fc.oneof(
  fc.constant<MachineEvent>({ type: 'DUE' }),
  fc.constant<MachineEvent>({ type: 'CANCEL' }),
  fc.integer({ min: 0, max: 3 }).map((step): MachineEvent => ({ type: 'ACCEPTED', step })),
  fc.integer({ min: 0, max: 3 }).map((step): MachineEvent => ({ type: 'DELIVERED', step })),
  fc.integer({ min: 0, max: 3 }).map((step): MachineEvent => ({ type: 'READ', step })),
  fc
    .tuple(fc.integer({ min: 0, max: 3 }), failure, fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }))
    .map(([step, f, retryAfter]): MachineEvent => ({ type: 'FAILED', step, failure: f, ...(retryAfter ? { retryAfter } : {}) })),
  fc
    .tuple(fc.integer({ min: 0, max: 3 }), fc.constantFrom('no session', 'funds short', 'undefined', 'a|b'))
    .map(([step, reason]): MachineEvent => ({ type: 'SKIPPED', step, reason })),
  fc
    .tuple(fc.integer({ min: 0, max: 3 }), fc.constantFrom<TimerName>('expiry', 'read', 'retry', 'due'))
    .map(([step, timer]): MachineEvent => ({ type: 'TIMER', step, timer })),
);

/** A copy of a state as the storage hands one back: equal, but another object. */
const reread = (state: PersistedMachineState): PersistedMachineState => JSON.parse(JSON.stringify(state)) as PersistedMachineState;

describe('MachineAdvancer', () => {
  it('answers, memoized, what each step computed afresh answers, for any events and either machine', () => {
    const route = Object.values(BUILTIN_ROUTES)[0]!;
    const machines = [
      { key: 'message', machine: messageMachine, input: (n: number): unknown => ({ attempts: n }) },
      { key: `cascade:${route.id}`, machine: compileRoute(route), input: (): unknown => undefined },
    ];
    // One advancer for every run: steps memoized by one run are hit by the next ones.
    const shared = new MachineAdvancer();
    fc.assert(
      fc.property(
        fc.constantFrom(0, 1),
        fc.integer({ min: 1, max: 3 }),
        fc.array(fc.tuple(event, fc.boolean()), { maxLength: 30 }),
        (which, attempts, events) => {
          const { key, machine, input } = machines[which]!;
          const memoInitial = shared.initial(key, machine, input(attempts));
          expect(memoInitial).toEqual(new MachineAdvancer().initial(key, machine, input(attempts)));
          let state = memoInitial.state;
          for (const [e, copied] of events) {
            const from = copied ? reread(state) : state;
            const memo = shared.next(key, machine, from, e);
            expect(memo).toEqual(new MachineAdvancer().next(key, machine, reread(from), e));
            if (memo.changed) state = memo.state;
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('answers, memoized, what each step computed afresh answers, for every event from every state within reach', () => {
    // Every variant of every event (each field varied), from every state a few events reach:
    // a field left out of the memo key makes two variants share a step, and one of them is wrong.
    const steps = [0, 1, 2];
    const alphabet: MachineEvent[] = [
      { type: 'DUE' },
      { type: 'CANCEL' },
      ...steps.flatMap((step): MachineEvent[] => [
        { type: 'ACCEPTED', step },
        { type: 'DELIVERED', step },
        { type: 'READ', step },
        ...(['throttled', 'temporary', 'not_on_channel', 'undeliverable', 'permanent'] as const).flatMap((failure): MachineEvent[] => [
          { type: 'FAILED', step, failure },
          { type: 'FAILED', step, failure, retryAfter: 1 },
          { type: 'FAILED', step, failure, retryAfter: 7 },
        ]),
        ...(['expiry', 'read', 'retry', 'due'] as const).map((timer): MachineEvent => ({ type: 'TIMER', step, timer })),
        { type: 'SKIPPED', step, reason: 'no session' },
        { type: 'SKIPPED', step, reason: 'funds short' },
      ]),
    ];
    const route = Object.values(BUILTIN_ROUTES)[0]!;
    const machines = [
      { key: 'message', machine: messageMachine, input: { attempts: 3 } as unknown },
      { key: `cascade:${route.id}`, machine: compileRoute(route), input: undefined as unknown },
    ];
    let checked = 0;
    for (const { key, machine, input } of machines) {
      const shared = new MachineAdvancer();
      const seen = new Set<string>();
      let frontier = [shared.initial(key, machine, input).state];
      for (let depth = 0; depth < 4 && frontier.length > 0; depth++) {
        const next: PersistedMachineState[] = [];
        for (const state of frontier) {
          for (const event of alphabet) {
            const memo = shared.next(key, machine, state, event);
            expect(memo, `${JSON.stringify(state)} on ${JSON.stringify(event)}`).toEqual(
              new MachineAdvancer().next(key, machine, reread(state), event),
            );
            checked++;
            const id = JSON.stringify(memo.state);
            if (memo.changed && !seen.has(id)) {
              seen.add(id);
              next.push(memo.state);
            }
          }
        }
        frontier = next;
      }
    }
    expect(checked).toBeGreaterThan(1_000);
  });

  it('keeps apart the steps of two machines from equal states on the same event', () => {
    const machineTo = (target: string) =>
      createMachine({ initial: 'waiting', states: { waiting: { on: { DUE: target } }, sent: {}, dropped: {} } });
    const sends = machineTo('sent');
    const drops = machineTo('dropped');
    const advancer = new MachineAdvancer();
    const state = advancer.initial('sends', sends, undefined).state;
    expect(advancer.next('sends', sends, state, { type: 'DUE' }).state.value).toBe('sent');
    // The same state object, the same event: another machine's key answers that machine's step.
    expect(advancer.next('drops', drops, state, { type: 'DUE' }).state.value).toBe('dropped');
    expect(advancer.next('sends', sends, reread(state), { type: 'DUE' }).state.value).toBe('sent');
  });
});
