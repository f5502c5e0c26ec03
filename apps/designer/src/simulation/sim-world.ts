import { defaultRateCard, parseCascadeRequest, priceAttempt } from '@spillway/core';
import { cascadeStepStatus, historyOf, planCascade } from '@spillway/core/adapter';
import type { ChannelId, DeliveryStatus, HistoryEntry, HistoryStatus, MachineEvent, Route, RouteOutcome } from '@spillway/core';
import { transition } from 'xstate';
import type { AnyStateMachine, StateValue } from 'xstate';

/** What the simulated channel does with a step's attempt. */
export const STEP_OUTCOMES = ['delivered', 'read', 'undeliverable', 'permanent', 'no_report', 'not_on_channel', 'throttled'] as const;
export type StepOutcome = (typeof STEP_OUTCOMES)[number];

/**
 * The reference simulator's test numbers (`999…NN`, the README's table), each with what it does.
 * `sim-world.test.ts` holds this list and {@link testNumberOutcome} to the simulator of
 * `@spillway/channels` (which the browser bundle cannot import: its package carries the SMPP and
 * Kannel drivers), so that a number added there fails here until it is added.
 */
export const TEST_NUMBERS: readonly (readonly [suffix: string, what: string])[] = [
  ['00', 'delivered on the first channel'],
  ['01', 'undeliverable but on SMS'],
  ['02', 'undeliverable everywhere'],
  ['03', 'permanent error'],
  ['04', 'no report ever'],
  ['05', 'delivered, then read'],
  ['06', 'not on the chat channels (refused at once); SMS delivers'],
];

const CHAT_CHANNELS: ReadonlySet<ChannelId> = new Set(['messenger', 'chatapp_bot', 'chatapp', 'rcs']);

/** The reference simulator's test numbers (`999…NN`): the outcome each gives on a channel. */
export function testNumberOutcome(suffix: string, channel: ChannelId): StepOutcome {
  switch (suffix) {
    case '01':
      return channel === 'sms' ? 'delivered' : 'undeliverable';
    case '02':
      return 'undeliverable';
    case '03':
      return 'permanent';
    case '04':
      return 'no_report';
    case '05':
      return CHAT_CHANNELS.has(channel) ? 'read' : 'delivered';
    case '06':
      return CHAT_CHANNELS.has(channel) ? 'not_on_channel' : 'delivered';
    default:
      return 'delivered';
  }
}

/** A channel report or a timer, due at `at` on the simulated clock. */
export interface Happening {
  at: number;
  seq: number;
  event: MachineEvent;
  detail?: string;
}

export interface SimHistoryEntry {
  step: number;
  channel: ChannelId;
  status: HistoryStatus;
  at: number;
  error: string | null;
}

/** One step as the engine plans it: its channel, timeout (s) and price (micro-units). */
export interface PlannedStep {
  id: string;
  channel: ChannelId;
  ttl: number;
  cost: number;
}

/** Everything the simulation knows at one instant; immutable, so any instant can be kept and returned to. */
export interface SimWorld {
  now: number;
  started: number;
  state: { value: StateValue; context: Record<string, unknown> };
  status: DeliveryStatus;
  queue: Happening[];
  seq: number;
  history: SimHistoryEntry[];
  /** Indexes (in `route.edges`) of the edges taken, in order. */
  taken: number[];
  plan: PlannedStep[];
}

export interface SimOptions {
  /** The cascade's ttl, seconds; null: each step's own timeout or the default. */
  ttl: number | null;
  /** Delay of a simulated channel's report, ms. @default 200 (the reference simulator's) */
  latencyMs?: number;
  /** The engine's default step timeout, s. @default 86400 */
  defaultStepTimeoutSeconds?: number;
}

const NOW = Date.UTC(2026, 0, 1, 9, 0, 0);

/** Plans the route's steps exactly as the engine does for a cascade with this ttl (prices from the default rate card). */
export function planSteps(route: Route, options: SimOptions): PlannedStep[] {
  const [cascade] = parseCascadeRequest(
    [{ toPhone: '99900000000', fromName: 'Simulation', text: 'Simulated message', ...(options.ttl ? { ttl: options.ttl } : {}) }],
    {
      now: NOW,
    },
  );
  const plan = planCascade(cascade!, route, {
    now: NOW,
    defaultStepTimeoutSeconds: options.defaultStepTimeoutSeconds ?? 86_400,
    credentials: { messenger: true, chatappBot: true },
  });
  return plan.steps.map((s, i) => ({
    id: route.steps[i]?.id ?? s.channel,
    channel: s.channel,
    ttl: s.ttl,
    cost: priceAttempt(defaultRateCard, s).cost,
  }));
}

/** A cascade about to start: scheduled, with its `DUE` queued at the start of the clock. */
export function createWorld(machine: AnyStateMachine, route: Route, options: SimOptions): SimWorld {
  const snapshot = machine.resolveState({
    value: 'scheduled',
    context: { step: route.steps.findIndex((s) => s.id === route.start), retries: 0 },
  });
  return {
    now: NOW,
    started: NOW,
    state: { value: snapshot.value, context: snapshot.context as Record<string, unknown> },
    status: 'scheduled',
    queue: [{ at: NOW, seq: 0, event: { type: 'DUE' } }],
    seq: 1,
    history: [],
    taken: [],
    plan: planSteps(route, options),
  };
}

/** The outcome an event moved the cascade on with, when it left a step. */
function outcomeOf(event: MachineEvent): RouteOutcome {
  if (event.type === 'FAILED' && event.failure === 'permanent') return 'permanenterror';
  if (event.type === 'TIMER') return event.timer === 'read' ? 'not_read' : 'expired';
  return 'undeliverable';
}

/** What the simulated channel reports for an attempt, like the reference simulator. */
function reportsOf(outcome: StepOutcome, step: number, latency: number): { after: number; event: MachineEvent; detail?: string }[] {
  const accepted = { after: 0, event: { type: 'ACCEPTED', step } as MachineEvent };
  switch (outcome) {
    case 'delivered':
      return [accepted, { after: latency, event: { type: 'DELIVERED', step } }];
    case 'read':
      return [accepted, { after: latency, event: { type: 'DELIVERED', step } }, { after: latency * 2 + 1, event: { type: 'READ', step } }];
    case 'undeliverable':
      return [
        accepted,
        {
          after: latency,
          event: { type: 'FAILED', step, failure: 'undeliverable' },
          detail: 'recipient not reachable on this channel (simulator)',
        },
      ];
    case 'permanent':
      return [accepted, { after: latency, event: { type: 'FAILED', step, failure: 'permanent' }, detail: 'permanent error (simulator)' }];
    case 'no_report':
      return [accepted];
    case 'not_on_channel':
      // Refused at once, never accepted: as the simulator's send answers (a blocked bot's 403).
      return [
        {
          after: 0,
          event: { type: 'FAILED', step, failure: 'not_on_channel' },
          detail: 'the recipient is not on this channel (simulator)',
        },
      ];
    case 'throttled':
      return [{ after: 0, event: { type: 'FAILED', step, failure: 'throttled' }, detail: 'too many requests (simulator)' }];
  }
}

const isTopLevel = (value: StateValue): DeliveryStatus => (typeof value === 'string' ? value : Object.keys(value)[0]) as DeliveryStatus;

/**
 * Feeds one happening to the route's machine (XState's pure `transition`) and carries out the
 * actions it asks for as the engine would: `send` hands the attempt to the simulated channel,
 * `armTimer`/`cancelTimers` queue and drop timers, `note` writes history.
 */
export function apply(
  world: SimWorld,
  machine: AnyStateMachine,
  route: Route,
  outcomes: Record<string, StepOutcome>,
  happening: Happening,
  latencyMs = 200,
): SimWorld {
  const before = machine.resolveState(world.state);
  const [after, actions] = transition(machine, before, happening.event);
  const changed = actions.length > 0 || JSON.stringify([after.value, after.context]) !== JSON.stringify([before.value, before.context]);
  let queue = world.queue.filter((h) => h !== happening);
  let seq = world.seq;
  const history = [...world.history];
  const taken = [...world.taken];
  const event = happening.event;
  const stepOf = (i: number) => world.plan[i]?.channel ?? 'sms';

  const entry = 'step' in event ? historyOf(event, changed, happening.detail) : null;
  if (entry && 'step' in event) history.push({ step: event.step, channel: stepOf(event.step), at: world.now, ...entry });

  for (const action of actions) {
    const params = (action.params ?? {}) as {
      step?: number;
      timer?: 'expiry' | 'read' | 'retry';
      seconds?: number;
      status?: HistoryStatus;
      error?: string;
    };
    switch (action.type as string) {
      case 'send': {
        const step = params.step as number;
        for (const r of reportsOf(outcomes[route.steps[step]?.id ?? ''] ?? 'delivered', step, latencyMs)) {
          queue.push({ at: world.now + r.after, seq: seq++, event: r.event, ...(r.detail ? { detail: r.detail } : {}) });
        }
        break;
      }
      case 'armTimer': {
        const step = params.step as number;
        const seconds = params.seconds ?? world.plan[step]?.ttl ?? 86_400;
        queue.push({ at: world.now + seconds * 1000, seq: seq++, event: { type: 'TIMER', step, timer: params.timer ?? 'expiry' } });
        break;
      }
      case 'cancelTimers':
        queue = queue.filter((h) => h.event.type !== 'TIMER' || (params.step !== undefined && h.event.step !== params.step));
        break;
      case 'note':
        history.push({
          step: params.step as number,
          channel: stepOf(params.step as number),
          status: params.status as HistoryStatus,
          at: world.now,
          error: params.error ?? null,
        });
        break;
      default:
        break;
    }
  }

  // The edge taken: the machine left one step for another.
  const from = (before.context as { step: number }).step;
  const to = (after.context as { step: number }).step;
  if (isTopLevel(before.value) === 'processing' && isTopLevel(after.value) === 'processing' && from !== to) {
    const fromId = route.steps[from]?.id;
    const toId = route.steps[to]?.id;
    const on = outcomeOf(event);
    let index = route.edges.findIndex((e) => e.from === fromId && e.to === toId && e.on === on);
    if (index < 0) index = route.edges.findIndex((e) => e.from === fromId && e.to === toId);
    if (index >= 0) taken.push(index);
  }

  return {
    ...world,
    state: { value: after.value, context: after.context as Record<string, unknown> },
    status: isTopLevel(after.value),
    queue,
    seq,
    history,
    taken,
  };
}

/** The happening due first (ties in the order they were queued). */
export function nextHappening(world: SimWorld): Happening | undefined {
  return world.queue.reduce<Happening | undefined>(
    (first, h) => (!first || h.at < first.at || (h.at === first.at && h.seq < first.seq) ? h : first),
    undefined,
  );
}

/** Whether nothing can happen any more: the cascade ended or nothing is queued. */
export const isSettled = (world: SimWorld) => world.queue.length === 0;

/**
 * Runs every happening due up to `until` in order, and sets the clock to `until`; once the cascade
 * has settled, the clock stays at the instant it did (its last happening) instead of running on
 * past the end while playing.
 */
export function advanceTo(world: SimWorld, until: number, run: (w: SimWorld, h: Happening) => SimWorld): SimWorld {
  let current = world;
  for (let next = nextHappening(current); next && next.at <= until; next = nextHappening(current)) {
    current = run({ ...current, now: Math.max(current.now, next.at) }, next);
  }
  return isSettled(current) ? current : { ...current, now: Math.max(current.now, until) };
}

/** The cascade status record as the status endpoint would show it: steps, history and cost. */
export function statusView(world: SimWorld) {
  const steps = world.plan.map((spec, i) => {
    const entries = world.history.filter((e) => e.step === i);
    const billed = entries.some((e) => e.status === 'Sent' || e.status === 'Failed');
    const last = entries[entries.length - 1];
    const errored = [...entries].reverse().find((e) => e.error !== null);
    // The status endpoint's own rule: `expired` for a step whose time ran out, as the history says.
    const status = cascadeStepStatus(entries.map((e): HistoryEntry => ({ messageId: 0, ...e })));
    return {
      step: i,
      id: spec.id,
      channel: spec.channel,
      status,
      dt: last ? new Date(last.at).toISOString() : null,
      error: errored?.error ?? null,
      cost: billed ? spec.cost / 1e6 : 0,
    };
  });
  return {
    status: world.status,
    cost: steps.reduce((sum, s) => sum + s.cost, 0),
    currency: defaultRateCard.currency,
    steps,
    history: world.history.map((e) => ({
      step: e.step,
      channel: e.channel,
      status: e.status,
      dt: new Date(e.at).toISOString(),
      error: e.error,
    })),
  };
}
