import { assign, setup } from 'xstate';
import type { AnyStateMachine } from 'xstate';
import { SpillwayError } from '../errors.ts';
import { validateRoute } from '../routes/validate-route.ts';
import type { FailureClass } from '../types/channel.ts';
import type { Route, RouteOutcome } from '../types/route.ts';
import type { HistoryStatus } from '../types/status.ts';
import type { MachineEvent, TimerName } from './events.ts';

/**
 * Context of a cascade machine: small discrete values only, so that a transition is a pure
 * function of (state, context, event) and the engine can memoize it.
 */
export interface CascadeMachineContext {
  /** Index of the current step in the route's `steps` (= the message's `steps`). */
  step: number;
  /** Retries of the current step after throttled or temporary failures. */
  retries: number;
}

/** Options of {@link compileRoute}. */
export interface CompileRouteOptions {
  /** Retries on the same step before a throttled/temporary failure counts as undeliverable. @default 3 */
  maxRetries?: number;
}

const DEFAULT_MAX_RETRIES = 3;
const RETRYABLE: ReadonlySet<FailureClass> = new Set(['throttled', 'temporary']);
/** Seconds before the n-th retry when the channel gives no Retry-After: 5, 10, 20, ... */
const backoffSeconds = (retries: number) => 5 * 2 ** retries;

type StepEvent = Extract<MachineEvent, { step: number }>;
type Args = { context: CascadeMachineContext; event: MachineEvent };
const stepOf = (event: MachineEvent): number | undefined => ('step' in event ? (event as StepEvent).step : undefined);
const isCurrent = ({ context, event }: Args) => stepOf(event) === context.step;
const isTimer =
  (timer: TimerName) =>
  ({ context, event }: Args) =>
    event.type === 'TIMER' && event.timer === timer && event.step === context.step;

/** Final state of an outcome that has no edge; `expired` and `not_read` end as undeliverable. */
const FINAL_OF: Record<RouteOutcome, string> = {
  undeliverable: '#cascade-undeliverable',
  permanenterror: '#cascade-permanenterror',
  expired: '#cascade-undeliverable',
  not_read: '#cascade-undeliverable',
};

const cache = new Map<string, AnyStateMachine>();

/**
 * Compiles a route to its XState machine. States: `scheduled` → `processing.s<index>.(sending |
 * awaiting | retrying | reading)` → final `delivered`, `undeliverable`, `permanenterror` or
 * `cancelled`; the top-level state is the `deliverystatus`. Actions (`send`, `armTimer`,
 * `cancelTimers`, `note`) are descriptors for the engine's outbox; none has an effect here.
 * Machines of stored routes are memoized by `id@revision`.
 *
 * @throws SpillwayError `validation_failed` when the route is invalid (see `validateRoute`).
 * @example
 * const machine = compileRoute(defaultRoute);
 * const [scheduled] = initialTransition(machine);
 * const [sending, actions] = transition(machine, scheduled, { type: 'DUE' }); // send {step: 0}
 */
export function compileRoute(route: Route, options: CompileRouteOptions = {}): AnyStateMachine {
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const key = route.id !== undefined && route.revision !== undefined ? `${route.id}@${route.revision}#${maxRetries}` : null;
  const cached = key ? cache.get(key) : undefined;
  if (cached) return cached;
  const errors = validateRoute(route);
  if (errors.length > 0) throw new SpillwayError('validation_failed', 'The route is invalid', errors);
  const machine = build(route, maxRetries);
  if (key) cache.set(key, machine);
  return machine;
}

function build(route: Route, maxRetries: number): AnyStateMachine {
  const indexOf = new Map(route.steps.map((s, i) => [s.id, i] as const));
  const edgeOf = (from: string, on: RouteOutcome) => route.edges.find((e) => e.from === from && e.on === on);
  const targetOf = (from: string, on: RouteOutcome) => {
    const edge = edgeOf(from, on);
    return edge ? `#step-${indexOf.get(edge.to)}` : FINAL_OF[on];
  };
  // Steps that can run before each step: a late delivery from one of them supersedes the cascade.
  const before = route.steps.map(() => new Set<number>());
  const order = topologicalOrder(route, indexOf);
  for (const i of order) {
    const id = route.steps[i]?.id;
    for (const edge of route.edges.filter((e) => e.from === id)) {
      const to = indexOf.get(edge.to) as number;
      before[to]?.add(i);
      for (const b of before[i] ?? []) before[to]?.add(b);
    }
  }

  const stepStates = Object.fromEntries(
    route.steps.map((step, i) => {
      const readEdge = edgeOf(step.id, 'not_read');
      const delivered = readEdge
        ? {
            guard: 'isCurrent' as const,
            target: 'reading',
            actions: { type: 'armTimer' as const, params: { timer: 'read' as const, step: i, seconds: readEdge.afterSeconds } },
          }
        : { guard: 'isCurrent' as const, target: '#cascade-delivered' };
      const failed = [
        {
          guard: 'canRetry' as const,
          target: 'retrying',
          actions: [
            {
              type: 'armTimer' as const,
              params: ({ context, event }: Args) => ({
                timer: 'retry' as const,
                step: i,
                seconds: (event.type === 'FAILED' ? event.retryAfter : undefined) ?? backoffSeconds(context.retries),
              }),
            },
            'countRetry' as const,
          ],
        },
        { guard: 'isPermanent' as const, target: targetOf(step.id, 'permanenterror') },
        // not_on_channel, undeliverable, and retryable failures past the last retry.
        { guard: 'isCurrent' as const, target: targetOf(step.id, 'undeliverable') },
      ];
      const outcomes = {
        DELIVERED: delivered,
        READ: { guard: 'isCurrent' as const, target: '#cascade-delivered' },
        FAILED: failed,
        TIMER: { guard: 'isExpiry' as const, target: targetOf(step.id, 'expired') },
      };
      const superseded = {
        guard: 'isEarlier' as const,
        target: '#cascade-delivered',
        actions: {
          type: 'note' as const,
          params: ({ event }: Args) => ({
            step: i,
            status: 'Superseded' as const,
            error: describeLate(route, event),
          }),
        },
      };
      // States are keyed by index: a step id is a label only, so any id (even `__proto__` or
      // `constructor`) is a safe state name.
      return [
        stateKey(i),
        {
          id: `step-${i}`,
          entry: { type: 'enterStep' as const, params: { step: i } },
          // Leaving a step for good drops its pending timers (expiry, read, retry).
          exit: { type: 'cancelTimers' as const, params: { step: i } },
          initial: 'sending',
          on: { DELIVERED: superseded, READ: superseded },
          states: {
            sending: {
              entry: { type: 'send' as const, params: { step: i } },
              on: {
                ...outcomes,
                ACCEPTED: {
                  guard: 'isCurrent' as const,
                  target: 'awaiting',
                  actions: { type: 'armTimer' as const, params: { timer: 'expiry' as const, step: i } },
                },
                SKIPPED: { guard: 'isCurrent' as const, target: targetOf(step.id, 'undeliverable') },
              },
            },
            awaiting: { on: outcomes },
            retrying: {
              on: {
                ...outcomes,
                TIMER: [
                  { guard: 'isRetryDue' as const, target: 'sending' },
                  { guard: 'isExpiry' as const, target: targetOf(step.id, 'expired') },
                ],
              },
            },
            // Delivered; waiting `afterSeconds` for a read before the not_read edge is taken.
            reading: {
              on: {
                READ: { guard: 'isCurrent' as const, target: '#cascade-delivered' },
                TIMER: {
                  guard: 'isReadDue' as const,
                  target: readEdge ? `#step-${indexOf.get(readEdge.to)}` : '#cascade-delivered',
                  // The history shows why the route moved on from a delivered step.
                  actions: {
                    type: 'note' as const,
                    params: { step: i, status: 'Expired' as const, error: `not read within ${readEdge?.afterSeconds ?? 0} s` },
                  },
                },
              },
            },
          },
        },
      ];
    }),
  );

  const lateDelivery = { guard: 'wasSent' as const, target: '#cascade-delivered' };

  return setup({
    types: {
      context: {} as CascadeMachineContext,
      events: {} as MachineEvent,
    },
    actions: {
      send: (_, _params: { step: number }) => {},
      armTimer: (_, _params: { timer: TimerName; step: number; seconds?: number | undefined }) => {},
      cancelTimers: (_, _params: { step?: number }) => {},
      note: (_, _params: { step: number; status: HistoryStatus; error?: string }) => {},
      countRetry: assign({ retries: ({ context }) => context.retries + 1 }),
      enterStep: assign((_, params: { step: number }) => ({ step: params.step, retries: 0 })),
    },
    guards: {
      isCurrent,
      isEarlier: ({ context, event }) => {
        const step = stepOf(event);
        return step !== undefined && (before[context.step]?.has(step) ?? false);
      },
      canRetry: ({ context, event }) =>
        event.type === 'FAILED' && isCurrent({ context, event }) && RETRYABLE.has(event.failure) && context.retries < maxRetries,
      isPermanent: ({ context, event }) => event.type === 'FAILED' && isCurrent({ context, event }) && event.failure === 'permanent',
      wasSent: ({ context, event }) => {
        const step = stepOf(event);
        return step !== undefined && (step === context.step || (before[context.step]?.has(step) ?? false));
      },
      isExpiry: isTimer('expiry'),
      isRetryDue: isTimer('retry'),
      isReadDue: isTimer('read'),
    },
  }).createMachine({
    id: 'cascade',
    initial: 'scheduled',
    context: { step: indexOf.get(route.start) ?? 0, retries: 0 },
    states: {
      scheduled: { on: { DUE: 'processing', CANCEL: 'cancelled' } },
      processing: { initial: stateKey(indexOf.get(route.start) ?? 0), states: stepStates },
      delivered: { id: 'cascade-delivered', type: 'final' },
      // Not XState-final: a late Delivered/Read of a step that was sent (the last one or one
      // before it) still turns the cascade delivered, since the recipient got it after all.
      undeliverable: { id: 'cascade-undeliverable', on: { DELIVERED: lateDelivery, READ: lateDelivery } },
      permanenterror: { id: 'cascade-permanenterror', on: { DELIVERED: lateDelivery, READ: lateDelivery } },
      cancelled: { id: 'cascade-cancelled', type: 'final' },
    },
  }) as unknown as AnyStateMachine;
}

/** State name of the step at `index`: `s0`, `s1`, ... (never the step id, which is user data). */
export const stateKey = (index: number): string => `s${index}`;

function describeLate(route: Route, event: MachineEvent): string {
  const step = stepOf(event) ?? -1;
  const earlier = route.steps[step];
  const what = event.type === 'READ' ? 'read' : 'delivered';
  return `superseded: step ${step} (${earlier?.id ?? '?'}, ${earlier?.channel ?? '?'}) was ${what} after the cascade moved on`;
}

/** Step indexes in an order where every edge goes forward (the route is acyclic once valid). */
function topologicalOrder(route: Route, indexOf: Map<string, number>): number[] {
  const incoming = route.steps.map(() => 0);
  for (const e of route.edges) incoming[indexOf.get(e.to) as number]! += 1;
  const ready = incoming.flatMap((n, i) => (n === 0 ? [i] : []));
  const order: number[] = [];
  for (let i = ready.shift(); i !== undefined; i = ready.shift()) {
    order.push(i);
    const id = route.steps[i]?.id;
    for (const e of route.edges.filter((x) => x.from === id)) {
      const to = indexOf.get(e.to) as number;
      incoming[to]! -= 1;
      if (incoming[to] === 0) ready.push(to);
    }
  }
  return order;
}
