import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import { MachineAdvancer } from '../engine/advance.ts';
import { BUILTIN_ROUTES } from '../routes/builtin-routes.ts';
import type { FailureClass } from '../types/channel.ts';
import { isFinalStatus } from '../types/status.ts';
import { compileRoute } from './cascade-machine.ts';
import type { MachineEvent, TimerName } from './events.ts';
import { messageMachine } from './message-machine.ts';

// Whatever a channel answers, whatever stale or duplicate receipts arrive and whenever timers
// fire, a message or cascade machine driven the way the engine drives it always ends final.

const failures: FailureClass[] = ['throttled', 'temporary', 'not_on_channel', 'undeliverable', 'permanent'];
const failure = fc.constantFrom(...failures);

/** What the channel does with one send. */
const answer = fc.oneof(
  fc.record({ kind: fc.constant('delivered' as const) }),
  fc.record({ kind: fc.constant('read' as const) }),
  fc.record({ kind: fc.constant('accepted-then-failed' as const), failure }),
  fc.record({ kind: fc.constant('silent' as const) }),
  fc.record({ kind: fc.constant('refused' as const), failure }),
  fc.record({ kind: fc.constant('skipped' as const) }),
);

/** An event out of nowhere: a late or duplicate receipt, a stale timer, a repeated DUE. */
const noise: fc.Arbitrary<MachineEvent> = fc.oneof(
  fc.constant<MachineEvent>({ type: 'DUE' }),
  fc.integer({ min: 0, max: 6 }).map((step): MachineEvent => ({ type: 'ACCEPTED', step })),
  fc.integer({ min: 0, max: 6 }).map((step): MachineEvent => ({ type: 'DELIVERED', step })),
  fc.integer({ min: 0, max: 6 }).map((step): MachineEvent => ({ type: 'READ', step })),
  fc.tuple(fc.integer({ min: 0, max: 6 }), failure).map(([step, f]): MachineEvent => ({ type: 'FAILED', step, failure: f })),
  fc
    .tuple(fc.integer({ min: 0, max: 6 }), fc.constantFrom<TimerName>('expiry', 'read', 'retry', 'due'))
    .map(([step, timer]): MachineEvent => ({ type: 'TIMER', step, timer })),
);

interface Run {
  answers: Array<{ kind: string; failure?: FailureClass }>;
  /** Noise events and the position (in events applied so far) at which each arrives. */
  noise: Array<{ at: number; event: MachineEvent }>;
}

const runs = fc.record({
  answers: fc.array(answer, { maxLength: 40 }),
  noise: fc.array(fc.record({ at: fc.nat({ max: 60 }), event: noise }), { maxLength: 20 }),
});

/**
 * Drives `machine` as the engine does: sends are answered from `run.answers` (silence when they
 * run out), receipts follow acceptances, noise arrives at its positions, and when nothing else is
 * pending the earliest armed timer fires. Answers the final status, or the status it got stuck in.
 */
function drive(key: string, machine: AnyStateMachine, input: unknown, run: Run, startWithDue: boolean): string {
  const advancer = new MachineAdvancer();
  const first = advancer.initial(key, machine, input);
  let state = first.state;
  let status: string = first.status;
  const queue: MachineEvent[] = [];
  const timers: Array<{ step: number; timer: TimerName; seconds: number; order: number }> = [];
  let order = 0;
  let answers = 0;
  const act = (actions: typeof first.actions) => {
    for (const action of actions) {
      switch (action.type) {
        case 'send': {
          const step = action.params.step;
          const a = run.answers[answers++] ?? { kind: 'silent' };
          if (a.kind === 'skipped') queue.push({ type: 'SKIPPED', step, reason: 'no session' });
          else if (a.kind === 'refused') queue.push({ type: 'FAILED', step, failure: a.failure! });
          else {
            queue.push({ type: 'ACCEPTED', step });
            if (a.kind === 'delivered') queue.push({ type: 'DELIVERED', step });
            if (a.kind === 'read') queue.push({ type: 'DELIVERED', step }, { type: 'READ', step });
            if (a.kind === 'accepted-then-failed') queue.push({ type: 'FAILED', step, failure: a.failure! });
          }
          break;
        }
        case 'armTimer':
          timers.push({ ...action.params, seconds: action.params.seconds ?? 86_400, order: order++ });
          break;
        case 'cancelTimers':
          for (let i = timers.length - 1; i >= 0; i--) {
            if (action.params.step === undefined || timers[i]!.step === action.params.step) timers.splice(i, 1);
          }
          break;
        case 'note':
          break;
      }
    }
  };
  act(first.actions);
  if (startWithDue) queue.push({ type: 'DUE' });
  const pendingNoise = [...run.noise].sort((a, b) => a.at - b.at);
  for (let applied = 0; applied < 500; applied++) {
    if (isFinalStatus(status as never)) return status;
    while (pendingNoise.length > 0 && pendingNoise[0]!.at <= applied) queue.push(pendingNoise.shift()!.event);
    let event = queue.shift();
    if (!event && pendingNoise.length > 0) event = pendingNoise.shift()!.event;
    if (!event) {
      // Nothing else will happen: the earliest timer fires (the clock moves on).
      timers.sort((a, b) => a.seconds - b.seconds || a.order - b.order);
      const timer = timers.shift();
      if (!timer) return status;
      event = { type: 'TIMER', step: timer.step, timer: timer.timer };
    }
    const next = advancer.next(key, machine, state, event);
    if (!next.changed) continue;
    state = next.state;
    status = next.status;
    act(next.actions);
  }
  return status;
}

describe('machines always end final', () => {
  it('message machine, for any number of fallbacks, answers, late receipts and timers', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), runs, (attempts, run) => {
        const status = drive('message', messageMachine, { attempts }, run, true);
        expect(isFinalStatus(status as never), `ended ${status}`).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it.each(Object.values(BUILTIN_ROUTES).map((route) => [route.id, route] as const))(
    'cascade machine of the %s route, for any answers, late receipts and timers',
    (_id, route) => {
      const machine = compileRoute(route);
      fc.assert(
        fc.property(runs, (run) => {
          const status = drive(`cascade:${route.id}`, machine, undefined, run, true);
          expect(isFinalStatus(status as never), `ended ${status}`).toBe(true);
        }),
        { numRuns: 200 },
      );
    },
  );
});
