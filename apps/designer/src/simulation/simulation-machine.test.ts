import { defaultRoute } from '@spillway/core';
import type { Route } from '@spillway/core';
import { createActor } from 'xstate';
import { describe, expect, it, vi } from 'vitest';
import { statusView } from './sim-world.ts';
import { simulationMachine, TICK_MS, ttlProblem } from './simulation-machine.ts';

const chatThenSms: Route = {
  name: 'Chat, then SMS if unread',
  start: 'chat',
  steps: [
    { id: 'chat', channel: 'chatapp', timeoutSeconds: 600 },
    { id: 'sms', channel: 'sms' },
  ],
  edges: [
    { from: 'chat', to: 'sms', on: 'expired' },
    { from: 'chat', to: 'sms', on: 'not_read', afterSeconds: 300 },
  ],
};

const start = (route: Route) => createActor(simulationMachine, { input: { route } }).start();
const view = (actor: ReturnType<typeof start>) => statusView(actor.getSnapshot().context.world!);

describe('simulation machine', () => {
  it('runs the compiled route step by step: a fall-through on each step, the edges taken, history and cost', () => {
    const sim = start(defaultRoute);
    sim.send({ type: 'USE_TEST_NUMBER', suffix: '01' }); // undeliverable everywhere but SMS
    sim.send({ type: 'START' }); // due, sent and accepted at the start of the clock
    expect(view(sim).history.map((h) => [h.channel, h.status])).toEqual([['messenger', 'Sent']]);
    sim.send({ type: 'STEP' }); // undeliverable after the latency; chatapp_bot sent
    expect(view(sim).history.map((h) => [h.channel, h.status])).toEqual([
      ['messenger', 'Sent'],
      ['messenger', 'Failed'],
      ['chatapp_bot', 'Sent'],
    ]);
    expect(sim.getSnapshot().context.world!.now - sim.getSnapshot().context.world!.started).toBe(200);
    for (let i = 0; i < 20 && !sim.getSnapshot().matches('finished'); i++) sim.send({ type: 'STEP' });
    expect(sim.getSnapshot().value).toBe('finished');
    const status = view(sim);
    expect(status.status).toBe('delivered');
    expect(status.steps.map((s) => s.status)).toEqual(['undeliverable', 'undeliverable', 'undeliverable', 'undeliverable', 'delivered']);
    expect(status.history.filter((h) => h.status === 'Failed').map((h) => h.error)).toEqual(
      Array(4).fill('undeliverable: recipient not reachable on this channel (simulator)'),
    );
    // messenger 0.01 + chatapp bot 0.01 + chat-app 0.03 + RCS 0.04 + SMS 0.05
    expect(status.cost).toBeCloseTo(0.14, 6);
    const taken = sim.getSnapshot().context.world!.taken.map((i) => defaultRoute.edges[i]);
    expect(taken.map((e) => `${e?.from}→${e?.to} on ${e?.on}`)).toEqual([
      'messenger→chatapp_bot on undeliverable',
      'chatapp_bot→chatapp on undeliverable',
      'chatapp→rcs on undeliverable',
      'rcs→sms on undeliverable',
    ]);
  });

  it('jumps past the next timeout: a delivered but unread chat falls through to SMS on not_read', () => {
    const sim = start(chatThenSms);
    sim.send({ type: 'START' }); // Sent
    sim.send({ type: 'STEP' }); // Delivered: waiting 300 s for a read
    expect(sim.getSnapshot().context.world!.state.value).toEqual({ processing: { s0: 'reading' } });
    sim.send({ type: 'JUMP' });
    const world = sim.getSnapshot().context.world!;
    expect(world.now - world.started).toBe(300_000 + 200);
    expect(world.taken).toEqual([1]);
    expect(view(sim).history.map((h) => h.status)).toEqual(['Sent', 'Delivered', 'Expired', 'Sent']);
    expect(view(sim).history[2]?.error).toBe('not read within 300 s');
    expect(view(sim).steps[0]?.status).toBe('delivered');
  });

  it('expires a step with no report at its own timeout and goes back in time', () => {
    const sim = start(chatThenSms);
    sim.send({ type: 'SET_OUTCOME', stepId: 'chat', outcome: 'no_report' });
    sim.send({ type: 'START' });
    sim.send({ type: 'JUMP' });
    expect(sim.getSnapshot().context.world!.now - sim.getSnapshot().context.world!.started).toBe(600_000);
    expect(view(sim).history.map((h) => [h.channel, h.status])).toEqual([
      ['chatapp', 'Sent'],
      ['chatapp', 'Expired'],
      ['sms', 'Sent'],
    ]);
    // The step says it expired, as the status endpoint does; a delivered but unread one stays delivered.
    expect(view(sim).steps.map((s) => [s.id, s.status])).toEqual([
      ['chat', 'expired'],
      ['sms', 'processing'],
    ]);
    expect(sim.getSnapshot().context.world!.taken).toEqual([0]);
    sim.send({ type: 'BACK' });
    expect(view(sim).history.map((h) => h.status)).toEqual(['Sent']);
  });

  it('retries a throttled step with backoff, then ends undeliverable where the step has no undeliverable edge', () => {
    const sim = start(chatThenSms);
    sim.send({ type: 'SET_OUTCOME', stepId: 'chat', outcome: 'throttled' });
    sim.send({ type: 'START' });
    for (let i = 0; i < 3; i++) sim.send({ type: 'JUMP' }); // retries after 5, 10 and 20 s
    const status = view(sim);
    expect(status.history.filter((h) => h.status === 'Failed')).toHaveLength(4);
    expect(status.steps[0]).toMatchObject({ status: 'undeliverable', error: 'throttled: too many requests (simulator)' });
    expect(status.history.map((h) => h.dt.slice(11, 19))).toEqual(['09:00:00', '09:00:05', '09:00:15', '09:00:35']);
    expect(status.status).toBe('undeliverable');
    expect(sim.getSnapshot().value).toBe('finished');
  });

  it('plays at N× on the injected ticker and stops when the cascade has settled', () => {
    vi.useFakeTimers();
    try {
      const sim = start(chatThenSms);
      sim.send({ type: 'SET_OUTCOME', stepId: 'chat', outcome: 'read' });
      sim.send({ type: 'SPEED', speed: 2 });
      sim.send({ type: 'START' });
      sim.send({ type: 'PLAY' });
      vi.advanceTimersByTime(TICK_MS * 2); // 400 simulated ms: delivered, not yet read
      expect(view(sim).history.map((h) => h.status)).toEqual(['Sent', 'Delivered']);
      vi.advanceTimersByTime(TICK_MS * 2);
      expect(sim.getSnapshot().value).toBe('finished');
      expect(view(sim)).toMatchObject({ status: 'delivered', cost: 0.03 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses to start an invalid route, counting its problems in words ("1 problem(s)" read badly)', () => {
    const lost = (ids: string[]): Route => ({
      ...chatThenSms,
      steps: [...chatThenSms.steps, ...ids.map((id) => ({ id, channel: 'sms' as const }))],
    });
    const sim = start(lost(['lost']));
    sim.send({ type: 'START' });
    expect(sim.getSnapshot().value).toBe('ready');
    expect(sim.getSnapshot().context.error).toBe('The route has a problem: fix it to simulate');
    expect(start(lost(['lost', 'astray'])).getSnapshot().context.error).toBe('The route has 2 problems: fix them to simulate');
  });

  it('refuses an invalid ttl instead of throwing out of START (it blanked the designer)', () => {
    for (const ttl of [-1, 0, 1.5, 2_592_001]) {
      const sim = start(chatThenSms);
      sim.send({ type: 'SET_TTL', ttl });
      expect(() => sim.send({ type: 'START' })).not.toThrow();
      expect(sim.getSnapshot().status).toBe('active');
      expect(sim.getSnapshot().value).toBe('ready');
      expect(sim.getSnapshot().context.error).toBe('ttl must be a whole number of seconds from 1 to 2592000 (30 days)');
    }
    expect([ttlProblem(null), ttlProblem(1), ttlProblem(2_592_000)]).toEqual([null, null, null]);
    // A valid ttl starts, and clears the refusal.
    const sim = start(chatThenSms);
    sim.send({ type: 'SET_TTL', ttl: -1 });
    sim.send({ type: 'START' });
    sim.send({ type: 'SET_TTL', ttl: 60 });
    sim.send({ type: 'START' });
    expect(sim.getSnapshot().matches('running')).toBe(true);
    expect(sim.getSnapshot().context.error).toBeNull();
  });

  it('stays ready with the error when the simulator throws while starting', () => {
    const sim = createActor(simulationMachine, { input: { route: chatThenSms, ttl: -1 } }).start();
    expect(() => sim.send({ type: 'START' })).not.toThrow();
    expect(sim.getSnapshot().status).toBe('active');
    expect(sim.getSnapshot().value).toBe('ready');
    expect(sim.getSnapshot().context.error).toMatch(/ttl must be a whole number/);
  });

  it('stops the clock where the cascade settled instead of playing on past it', () => {
    vi.useFakeTimers();
    try {
      const sim = start(chatThenSms);
      sim.send({ type: 'SET_OUTCOME', stepId: 'chat', outcome: 'read' });
      sim.send({ type: 'SPEED', speed: 600 }); // a minute of the simulated clock each tick
      sim.send({ type: 'START' });
      sim.send({ type: 'PLAY' });
      vi.advanceTimersByTime(TICK_MS);
      expect(sim.getSnapshot().value).toBe('finished');
      const world = () => sim.getSnapshot().context.world!;
      // Sent at 0, delivered at 200 ms, read at 401 ms: nothing happens after the read.
      expect(view(sim).history.map((h) => h.status)).toEqual(['Sent', 'Delivered', 'Read']);
      expect(world().now - world().started).toBe(401);
      vi.advanceTimersByTime(TICK_MS * 5);
      expect(world().now - world().started).toBe(401);
    } finally {
      vi.useRealTimers();
    }
  });
});
