import { describe, expect, it } from 'vitest';
import { MachineAdvancer } from '../engine/advance.ts';
import type { MachineEvent } from './events.ts';
import { messageMachine } from './message-machine.ts';

const adv = new MachineAdvancer();
function run(attempts: number, events: MachineEvent[]) {
  let step = adv.initial('m', messageMachine, { attempts });
  const all = [step];
  for (const e of events) {
    step = adv.next('m', messageMachine, step.state, e);
    all.push(step);
  }
  return { last: step, all };
}

describe('message machine', () => {
  it('starts scheduled and sends the primary when due', () => {
    const { all } = run(1, [{ type: 'DUE' }]);
    expect(all[0]!.status).toBe('scheduled');
    expect(all[0]!.actions).toEqual([]);
    expect(all[1]!.status).toBe('processing');
    expect(all[1]!.actions).toEqual([{ type: 'send', params: { step: 0 } }]);
  });

  it('arms the expiry timer on acceptance and is delivered on the receipt, never on acceptance', () => {
    const { all } = run(1, [{ type: 'DUE' }, { type: 'ACCEPTED', step: 0 }, { type: 'DELIVERED', step: 0 }]);
    expect(all[2]!.status).toBe('processing');
    expect(all[2]!.actions).toEqual([{ type: 'armTimer', params: { timer: 'expiry', step: 0 } }]);
    expect(all[3]!.status).toBe('delivered');
    expect(all[3]!.actions).toEqual([{ type: 'cancelTimers', params: {} }]);
  });

  it('falls back to the next attempt when the primary is undeliverable; the fallback decides', () => {
    const { all, last } = run(2, [
      { type: 'DUE' },
      { type: 'ACCEPTED', step: 0 },
      { type: 'FAILED', step: 0, failure: 'undeliverable' },
      { type: 'ACCEPTED', step: 1 },
      { type: 'DELIVERED', step: 1 },
    ]);
    expect(all[3]!.status).toBe('processing');
    expect(all[3]!.state.context).toMatchObject({ step: 1 });
    expect(all[3]!.actions).toEqual([
      { type: 'cancelTimers', params: {} },
      { type: 'send', params: { step: 1 } },
    ]);
    expect(last.status).toBe('delivered');
  });

  it('falls back when the primary expires at its ttl, and ends undeliverable when the last expires', () => {
    const { all } = run(2, [
      { type: 'DUE' },
      { type: 'ACCEPTED', step: 0 },
      { type: 'TIMER', step: 0, timer: 'expiry' },
      { type: 'ACCEPTED', step: 1 },
      { type: 'TIMER', step: 1, timer: 'expiry' },
    ]);
    expect(all[3]!.actions).toContainEqual({ type: 'send', params: { step: 1 } });
    expect(all[5]!.status).toBe('undeliverable');
  });

  it('ends in permanenterror when the last attempt fails permanently', () => {
    const { last } = run(2, [
      { type: 'DUE' },
      { type: 'FAILED', step: 0, failure: 'undeliverable' },
      { type: 'FAILED', step: 1, failure: 'permanent' },
    ]);
    expect(last.status).toBe('permanenterror');
  });

  it('a permanent error of the primary still falls back', () => {
    const { last } = run(2, [{ type: 'DUE' }, { type: 'FAILED', step: 0, failure: 'permanent' }]);
    expect(last.status).toBe('processing');
    expect(last.actions).toContainEqual({ type: 'send', params: { step: 1 } });
  });

  it('retries throttled failures on the same channel, honouring retryAfter, then gives up', () => {
    const t: MachineEvent = { type: 'FAILED', step: 0, failure: 'throttled', retryAfter: 7 };
    const retry: MachineEvent = { type: 'TIMER', step: 0, timer: 'retry' };
    const { all, last } = run(1, [{ type: 'DUE' }, t, retry, t, retry, t, retry, t]);
    expect(all[2]!.actions).toEqual([{ type: 'armTimer', params: { timer: 'retry', step: 0, seconds: 7 } }]);
    expect(all[3]!.actions).toEqual([{ type: 'send', params: { step: 0 } }]);
    expect(last.status).toBe('undeliverable');
  });

  it('ignores stale timers and receipts of other attempts', () => {
    const { all } = run(2, [
      { type: 'DUE' },
      { type: 'FAILED', step: 0, failure: 'undeliverable' },
      { type: 'TIMER', step: 0, timer: 'expiry' },
      { type: 'FAILED', step: 0, failure: 'permanent' },
    ]);
    expect(all[3]!.changed).toBe(false);
    expect(all[4]!.changed).toBe(false);
    expect(all[4]!.status).toBe('processing');
  });

  it('a late delivery of an earlier attempt ends the message delivered, noting the supersession', () => {
    const { last } = run(3, [{ type: 'DUE' }, { type: 'TIMER', step: 0, timer: 'expiry' }, { type: 'DELIVERED', step: 0 }]);
    expect(last.status).toBe('delivered');
    expect(last.actions).toContainEqual({
      type: 'note',
      params: { step: 1, status: 'Superseded', error: 'attempt 0 was delivered late' },
    });
  });

  it('is cancelled only while scheduled', () => {
    expect(run(1, [{ type: 'CANCEL' }]).last.status).toBe('cancelled');
    expect(run(1, [{ type: 'DUE' }, { type: 'CANCEL' }]).last.status).toBe('processing');
  });

  it('a late delivery after the message ended undeliverable or permanenterror ends it delivered', () => {
    const expired = [
      { type: 'DUE' },
      { type: 'ACCEPTED', step: 0 },
      { type: 'TIMER', step: 0, timer: 'expiry' },
      { type: 'ACCEPTED', step: 1 },
      { type: 'TIMER', step: 1, timer: 'expiry' },
    ] as MachineEvent[];
    expect(run(2, expired).last.status).toBe('undeliverable');
    expect(run(2, [...expired, { type: 'DELIVERED', step: 0 }]).last.status).toBe('delivered');
    expect(run(2, [...expired, { type: 'DELIVERED', step: 1 }]).last.status).toBe('delivered');
    const permanent = [{ type: 'DUE' }, { type: 'FAILED', step: 0, failure: 'permanent' }] as MachineEvent[];
    expect(run(1, permanent).last.status).toBe('permanenterror');
    expect(run(1, [...permanent, { type: 'DELIVERED', step: 0 }]).last.status).toBe('delivered');
  });
});
