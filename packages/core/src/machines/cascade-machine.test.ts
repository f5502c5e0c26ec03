import { describe, expect, it } from 'vitest';
import { initialTransition, transition } from 'xstate';
import type { AnyMachineSnapshot, AnyStateMachine } from 'xstate';
import { compileRoute } from './cascade-machine.ts';
import type { MachineEvent } from './events.ts';
import { defaultRoute, messengerFirstRoute } from '../routes/builtin-routes.ts';
import type { Route } from '../types/route.ts';
import { SpillwayError } from '../errors.ts';

type Act = { type: string; params: unknown };

/** Drives a machine with the pure functions only; answers the last snapshot and its actions. */
function drive(machine: AnyStateMachine, events: MachineEvent[]): { snap: AnyMachineSnapshot; actions: Act[] } {
  let [snap] = initialTransition(machine) as [AnyMachineSnapshot, unknown];
  let actions: Act[] = [];
  for (const event of events) {
    const [next, acts] = transition(machine, snap, event);
    snap = next as AnyMachineSnapshot;
    actions = acts.map((a) => ({ type: a.type, params: a.params }));
  }
  return { snap, actions };
}

const sms = (id = 'sms') => ({ id, channel: 'sms' as const });
const twoStep: Route = {
  id: 'two',
  revision: 1,
  name: 'chat then sms',
  start: 'chat',
  steps: [{ id: 'chat', channel: 'chatapp' }, sms()],
  edges: [
    { from: 'chat', to: 'sms', on: 'undeliverable' },
    { from: 'chat', to: 'sms', on: 'expired' },
  ],
};
const withRead: Route = {
  name: 'read or sms',
  start: 'chat',
  steps: [{ id: 'chat', channel: 'chatapp' }, sms()],
  edges: [{ from: 'chat', to: 'sms', on: 'not_read', afterSeconds: 600 }],
};
const m = compileRoute(twoStep);

describe('compileRoute', () => {
  it('starts scheduled, sends the start step on DUE and arms the expiry on acceptance', () => {
    const [snap, first] = initialTransition(m);
    expect(snap.value).toBe('scheduled');
    expect(first).toEqual([]);
    let r = drive(m, [{ type: 'DUE' }]);
    expect(r.snap.value).toEqual({ processing: { s0: 'sending' } });
    expect(r.snap.context).toEqual({ step: 0, retries: 0 });
    expect(r.actions).toEqual([{ type: 'send', params: { step: 0 } }]);
    r = drive(m, [{ type: 'DUE' }, { type: 'ACCEPTED', step: 0 }]);
    expect(r.snap.value).toEqual({ processing: { s0: 'awaiting' } });
    expect(r.actions).toEqual([{ type: 'armTimer', params: { timer: 'expiry', step: 0 } }]);
  });

  it('ends delivered on a delivery of the current step', () => {
    const r = drive(m, [{ type: 'DUE' }, { type: 'ACCEPTED', step: 0 }, { type: 'DELIVERED', step: 0 }]);
    expect(r.snap.value).toBe('delivered');
    expect(r.snap.status).toBe('done');
    expect(r.actions).toEqual([{ type: 'cancelTimers', params: { step: 0 } }]);
  });

  it('follows the undeliverable edge for undeliverable and not_on_channel failures and SKIPPED', () => {
    for (const event of [
      { type: 'FAILED', step: 0, failure: 'undeliverable' },
      { type: 'FAILED', step: 0, failure: 'not_on_channel' },
      { type: 'SKIPPED', step: 0, reason: 'no session' },
    ] as MachineEvent[]) {
      const r = drive(m, [{ type: 'DUE' }, event]);
      expect(r.snap.value).toEqual({ processing: { s1: 'sending' } });
      expect(r.snap.context).toEqual({ step: 1, retries: 0 });
      expect(r.actions).toEqual([
        { type: 'cancelTimers', params: { step: 0 } },
        { type: 'send', params: { step: 1 } },
      ]);
    }
  });

  it('follows the expired edge on the expiry timer of the current step', () => {
    const r = drive(m, [{ type: 'DUE' }, { type: 'ACCEPTED', step: 0 }, { type: 'TIMER', step: 0, timer: 'expiry' }]);
    expect(r.snap.value).toEqual({ processing: { s1: 'sending' } });
  });

  it('ends in the outcome status when a step has no edge for it (expired ends undeliverable)', () => {
    const toSms = [{ type: 'DUE' }, { type: 'FAILED', step: 0, failure: 'undeliverable' }, { type: 'ACCEPTED', step: 1 }] as MachineEvent[];
    expect(drive(m, [...toSms, { type: 'TIMER', step: 1, timer: 'expiry' }]).snap.value).toBe('undeliverable');
    expect(drive(m, [...toSms, { type: 'FAILED', step: 1, failure: 'permanent' }]).snap.value).toBe('permanenterror');
    expect(drive(m, [...toSms, { type: 'FAILED', step: 1, failure: 'undeliverable' }]).snap.value).toBe('undeliverable');
    // chat has no permanenterror edge: a permanent error there ends the cascade.
    expect(drive(m, [{ type: 'DUE' }, { type: 'FAILED', step: 0, failure: 'permanent' }]).snap.value).toBe('permanenterror');
  });

  it('retries throttled and temporary failures on the same step, honouring retryAfter, at most 3 times', () => {
    let r = drive(m, [{ type: 'DUE' }, { type: 'FAILED', step: 0, failure: 'throttled', retryAfter: 42 }]);
    expect(r.snap.value).toEqual({ processing: { s0: 'retrying' } });
    expect(r.snap.context).toEqual({ step: 0, retries: 1 });
    expect(r.actions).toEqual([{ type: 'armTimer', params: { timer: 'retry', step: 0, seconds: 42 } }]);

    r = drive(m, [
      { type: 'DUE' },
      { type: 'FAILED', step: 0, failure: 'throttled', retryAfter: 42 },
      { type: 'TIMER', step: 0, timer: 'retry' },
    ]);
    expect(r.snap.value).toEqual({ processing: { s0: 'sending' } });
    expect(r.actions).toEqual([{ type: 'send', params: { step: 0 } }]);

    const fail = { type: 'FAILED', step: 0, failure: 'temporary' } as const;
    const retry = { type: 'TIMER', step: 0, timer: 'retry' } as const;
    r = drive(m, [{ type: 'DUE' }, fail, retry, fail]);
    expect(r.actions).toEqual([{ type: 'armTimer', params: { timer: 'retry', step: 0, seconds: 10 } }]);
    r = drive(m, [{ type: 'DUE' }, fail, retry, fail, retry, fail, retry]);
    expect(r.snap.context).toEqual({ step: 0, retries: 3 });
    r = drive(m, [{ type: 'DUE' }, fail, retry, fail, retry, fail, retry, fail]);
    // The fourth failure is past the last retry: undeliverable, so the edge to SMS is taken.
    expect(r.snap.value).toEqual({ processing: { s1: 'sending' } });
    expect(r.snap.context).toEqual({ step: 1, retries: 0 });
  });

  it('takes the expired edge while waiting to retry and honours maxRetries', () => {
    const r = drive(m, [
      { type: 'DUE' },
      { type: 'ACCEPTED', step: 0 },
      { type: 'FAILED', step: 0, failure: 'temporary' },
      { type: 'TIMER', step: 0, timer: 'expiry' },
    ]);
    expect(r.snap.value).toEqual({ processing: { s1: 'sending' } });
    const none = compileRoute({ ...twoStep, id: undefined }, { maxRetries: 0 });
    expect(drive(none, [{ type: 'DUE' }, { type: 'FAILED', step: 0, failure: 'throttled' }]).snap.value).toEqual({
      processing: { s1: 'sending' },
    });
  });

  it('waits for a read when the step has a not_read edge', () => {
    const mr = compileRoute(withRead);
    const delivered = [{ type: 'DUE' }, { type: 'ACCEPTED', step: 0 }, { type: 'DELIVERED', step: 0 }] as MachineEvent[];
    let r = drive(mr, delivered);
    expect(r.snap.value).toEqual({ processing: { s0: 'reading' } });
    expect(r.actions).toEqual([{ type: 'armTimer', params: { timer: 'read', step: 0, seconds: 600 } }]);
    expect(drive(mr, [...delivered, { type: 'READ', step: 0 }]).snap.value).toBe('delivered');
    // The attempt's expiry no longer matters once delivered.
    expect(drive(mr, [...delivered, { type: 'TIMER', step: 0, timer: 'expiry' }]).snap.value).toEqual({ processing: { s0: 'reading' } });
    r = drive(mr, [...delivered, { type: 'TIMER', step: 0, timer: 'read' }]);
    expect(r.snap.value).toEqual({ processing: { s1: 'sending' } });
    expect(r.actions).toEqual([
      { type: 'cancelTimers', params: { step: 0 } },
      { type: 'note', params: { step: 0, status: 'Expired', error: 'not read within 600 s' } },
      { type: 'send', params: { step: 1 } },
    ]);
    // A read without a delivery receipt counts as delivered.
    expect(drive(mr, [{ type: 'DUE' }, { type: 'ACCEPTED', step: 0 }, { type: 'READ', step: 0 }]).snap.value).toBe('delivered');
  });

  it('treats a late delivery or read of an earlier step as delivered and notes Superseded on the current step', () => {
    const moved = [{ type: 'DUE' }, { type: 'ACCEPTED', step: 0 }, { type: 'TIMER', step: 0, timer: 'expiry' }] as MachineEvent[];
    for (const tail of [[], [{ type: 'ACCEPTED', step: 1 }], [{ type: 'FAILED', step: 1, failure: 'temporary' }]] as MachineEvent[][]) {
      for (const late of ['DELIVERED', 'READ'] as const) {
        const r = drive(m, [...moved, ...tail, { type: late, step: 0 }]);
        expect(r.snap.value).toBe('delivered');
        expect(r.actions).toEqual([
          { type: 'cancelTimers', params: { step: 1 } },
          { type: 'note', params: { step: 1, status: 'Superseded', error: expect.stringContaining('step 0 (chat, chatapp)') } },
        ]);
      }
    }
  });

  it('ignores late failures of earlier steps, outcomes of other steps and stale timers', () => {
    const moved = [{ type: 'DUE' }, { type: 'FAILED', step: 0, failure: 'undeliverable' }, { type: 'ACCEPTED', step: 1 }] as MachineEvent[];
    for (const event of [
      { type: 'FAILED', step: 0, failure: 'permanent' },
      { type: 'TIMER', step: 0, timer: 'expiry' },
      { type: 'TIMER', step: 1, timer: 'retry' },
      { type: 'ACCEPTED', step: 0 },
    ] as MachineEvent[]) {
      const r = drive(m, [...moved, event]);
      expect(r.snap.value).toEqual({ processing: { s1: 'awaiting' } });
      expect(r.actions).toEqual([]);
    }
    // A delivery of a later step (never sent) is not a late receipt.
    expect(drive(m, [{ type: 'DUE' }, { type: 'DELIVERED', step: 1 }]).snap.value).toEqual({ processing: { s0: 'sending' } });
  });

  it('cancels only while scheduled', () => {
    expect(drive(m, [{ type: 'CANCEL' }]).snap.value).toBe('cancelled');
    expect(drive(m, [{ type: 'DUE' }, { type: 'CANCEL' }]).snap.value).toEqual({ processing: { s0: 'sending' } });
  });

  it('walks the whole default route to SMS', () => {
    const events: MachineEvent[] = [{ type: 'DUE' }];
    for (let step = 0; step < 4; step++) events.push({ type: 'FAILED', step, failure: 'not_on_channel' });
    const r = drive(compileRoute(defaultRoute), events);
    expect(r.snap.value).toEqual({ processing: { s4: 'sending' } });
    expect(r.snap.context).toEqual({ step: 4, retries: 0 });
    const first = drive(compileRoute(messengerFirstRoute), [{ type: 'DUE' }, { type: 'SKIPPED', step: 0, reason: 'no bot key' }]);
    expect(first.snap.value).toEqual({ processing: { s1: 'sending' } });
  });

  it('memoizes stored routes by id@revision and rejects invalid routes', () => {
    expect(compileRoute(twoStep)).toBe(m);
    expect(compileRoute({ ...twoStep, revision: 2 })).not.toBe(m);
    expect(() => compileRoute({ ...twoStep, id: undefined, start: 'nope' })).toThrow(SpillwayError);
  });

  it('uses step indexes of the route order, whatever the start', () => {
    const reversed: Route = {
      name: 'r',
      start: 'b',
      steps: [sms('a'), { id: 'b', channel: 'rcs' }],
      edges: [{ from: 'b', to: 'a', on: 'expired' }],
    };
    const mr = compileRoute(reversed);
    const r = drive(mr, [{ type: 'DUE' }]);
    expect(r.snap.context).toEqual({ step: 1, retries: 0 });
    expect(r.actions).toEqual([{ type: 'send', params: { step: 1 } }]);
    expect(drive(mr, [{ type: 'DUE' }, { type: 'ACCEPTED', step: 1 }, { type: 'TIMER', step: 1, timer: 'expiry' }]).actions).toEqual([
      { type: 'cancelTimers', params: { step: 1 } },
      { type: 'send', params: { step: 0 } },
    ]);
  });

  it('resumes from a persisted value and context (how the engine rehydrates)', () => {
    const persisted = drive(m, [{ type: 'DUE' }, { type: 'FAILED', step: 0, failure: 'temporary' }]).snap;
    const restored = m.resolveState({ value: JSON.parse(JSON.stringify(persisted.value)), context: { ...persisted.context } });
    const [next, actions] = transition(m, restored, { type: 'TIMER', step: 0, timer: 'retry' });
    expect(next.value).toEqual({ processing: { s0: 'sending' } });
    expect(next.context).toEqual({ step: 0, retries: 1 });
    expect(actions.map((a) => a.type)).toEqual(['send']);
  });

  it('runs routes whose step ids are Object.prototype names (states are keyed by index)', () => {
    for (const id of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const route: Route = {
        name: `odd ${id}`,
        start: id,
        steps: [{ id, channel: 'chatapp' }, sms('valueOf')],
        edges: [{ from: id, to: 'valueOf', on: 'undeliverable' }],
      };
      const machine = compileRoute(route);
      let r = drive(machine, [{ type: 'DUE' }]);
      expect(r.snap.value).toEqual({ processing: { s0: 'sending' } });
      r = drive(machine, [{ type: 'DUE' }, { type: 'FAILED', step: 0, failure: 'undeliverable' }]);
      expect(r.snap.value).toEqual({ processing: { s1: 'sending' } });
      expect(drive(machine, [{ type: 'DUE' }, { type: 'ACCEPTED', step: 0 }, { type: 'DELIVERED', step: 0 }]).snap.value).toBe('delivered');
    }
  });

  it('turns an ended cascade delivered on a late Delivered or Read of a step it sent', () => {
    const ended = [
      { type: 'DUE' },
      { type: 'ACCEPTED', step: 0 },
      { type: 'TIMER', step: 0, timer: 'expiry' },
      { type: 'ACCEPTED', step: 1 },
      { type: 'TIMER', step: 1, timer: 'expiry' },
    ] as MachineEvent[];
    expect(drive(m, ended).snap.value).toBe('undeliverable');
    for (const late of ['DELIVERED', 'READ'] as const) {
      expect(drive(m, [...ended, { type: late, step: 0 }]).snap.value).toBe('delivered');
      expect(drive(m, [...ended, { type: late, step: 1 }]).snap.value).toBe('delivered');
    }
    const permanent = [{ type: 'DUE' }, { type: 'FAILED', step: 0, failure: 'permanent' }] as MachineEvent[];
    expect(drive(m, permanent).snap.value).toBe('permanenterror');
    expect(drive(m, [...permanent, { type: 'DELIVERED', step: 0 }]).snap.value).toBe('delivered');
    // A cancelled cascade stays cancelled.
    expect(drive(m, [{ type: 'CANCEL' }, { type: 'DELIVERED', step: 0 }]).snap.value).toBe('cancelled');
  });
});
