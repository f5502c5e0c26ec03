import { compileRoute, MAX_CASCADE_TTL, validateRoute } from '@spillway/core';
import type { Route } from '@spillway/core';
import { assign, fromCallback, setup } from 'xstate';
import type { AnyStateMachine } from 'xstate';
import { advanceTo, apply, createWorld, isSettled, nextHappening, testNumberOutcome } from './sim-world.ts';
import type { Happening, SimWorld, StepOutcome } from './sim-world.ts';

export interface SimulationContext {
  route: Route;
  /** The very machine `compileRoute` builds for the route (null while the route is invalid). */
  machine: AnyStateMachine | null;
  outcomes: Record<string, StepOutcome>;
  ttl: number | null;
  latencyMs: number;
  world: SimWorld | null;
  /** Earlier instants, newest last: `BACK` returns to them. */
  past: SimWorld[];
  /** Simulated ms per real ms while playing. */
  speed: number;
  error: string | null;
}

export type SimulationEvent =
  | { type: 'SET_OUTCOME'; stepId: string; outcome: StepOutcome }
  /** Every step as a simulator test number ending in `suffix` (00..05) would go. */
  | { type: 'USE_TEST_NUMBER'; suffix: string }
  | { type: 'SET_TTL'; ttl: number | null }
  | { type: 'START' }
  | { type: 'STEP' }
  | { type: 'JUMP' }
  | { type: 'BACK' }
  | { type: 'PLAY' }
  | { type: 'PAUSE' }
  | { type: 'SPEED'; speed: number }
  | { type: 'TICK'; ms: number }
  | { type: 'RESET' };

/**
 * Why a cascade ttl (seconds) cannot be simulated, or null when it can (none, or a whole number
 * of seconds up to {@link MAX_CASCADE_TTL}, as the API accepts).
 */
export function ttlProblem(ttl: number | null): string | null {
  if (ttl === null || (Number.isInteger(ttl) && ttl >= 1 && ttl <= MAX_CASCADE_TTL)) return null;
  return `ttl must be a whole number of seconds from 1 to ${MAX_CASCADE_TTL} (${MAX_CASCADE_TTL / 86400} days)`;
}

/** The world at the start of the clock, or why it cannot start: nothing the simulator throws escapes into the designer. */
function started(context: SimulationContext): Partial<SimulationContext> {
  try {
    const world = createWorld(context.machine as AnyStateMachine, context.route, { ttl: context.ttl });
    // DUE is processed at once: the first step is sent at the start of the clock.
    return { world: stepOnce(context, world), past: [world], error: null };
  } catch (e) {
    return { world: null, past: [], error: `The simulation could not start: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** Real ms between clock ticks while playing. */
export const TICK_MS = 100;

function compile(route: Route): { machine: AnyStateMachine | null; error: string | null } {
  const problems = validateRoute(route);
  if (problems.length === 1) return { machine: null, error: 'The route has a problem: fix it to simulate' };
  if (problems.length > 1) return { machine: null, error: `The route has ${problems.length} problems: fix them to simulate` };
  // A draft is compiled without its id, so edits never hit the memoized machine of a stored revision.
  const { id: _id, revision: _rev, ...draft } = route;
  return { machine: compileRoute(draft as Route), error: null };
}

const runner = (context: SimulationContext) => (world: SimWorld, happening: Happening) =>
  apply(world, context.machine as AnyStateMachine, context.route, context.outcomes, happening, context.latencyMs);

/** The world after the next happening and every other one due at the same instant. */
function stepOnce(context: SimulationContext, world: SimWorld): SimWorld {
  const next = nextHappening(world);
  return next ? advanceTo(world, next.at, runner(context)) : world;
}

/** The world just past the next timer (expiry, read wait or retry), with everything due before it. */
function jumpPastTimer(context: SimulationContext, world: SimWorld): SimWorld {
  const timers = world.queue.filter((h) => h.event.type === 'TIMER');
  if (timers.length === 0) return stepOnce(context, world);
  return advanceTo(world, Math.min(...timers.map((t) => t.at)), runner(context));
}

const remember = (context: SimulationContext, next: SimWorld) => ({
  world: next,
  past: [...context.past, context.world as SimWorld].slice(-500),
});

/**
 * Simulates a cascade on a route without sending anything: the route's compiled machine runs on a
 * time-travel clock (step to the next report or timer, play at N×, jump past the next timeout, go
 * back), each step's channel answering as picked (delivered, read, undeliverable, permanent
 * error, no report, throttled) or as a simulator test number would.
 */
export const simulationMachine = setup({
  types: {
    context: {} as SimulationContext,
    events: {} as SimulationEvent,
    input: {} as { route: Route; ttl?: number | null; latencyMs?: number },
  },
  actors: {
    ticker: fromCallback(({ sendBack }) => {
      const timer = setInterval(() => sendBack({ type: 'TICK', ms: TICK_MS }), TICK_MS);
      return () => clearInterval(timer);
    }),
  },
  guards: {
    runnable: ({ context }) => context.machine !== null,
    settled: ({ context }) => context.world !== null && isSettled(context.world),
    hasPast: ({ context }) => context.past.length > 0,
    badTtl: ({ context }) => ttlProblem(context.ttl) !== null,
    noWorld: ({ context }) => context.world === null,
  },
}).createMachine({
  id: 'simulation',
  context: ({ input }) => ({
    route: input.route,
    ...compile(input.route),
    outcomes: Object.fromEntries(input.route.steps.map((s) => [s.id, 'delivered' as StepOutcome])),
    ttl: input.ttl ?? null,
    latencyMs: input.latencyMs ?? 200,
    world: null,
    past: [],
    speed: 10,
  }),
  initial: 'ready',
  on: {
    SET_OUTCOME: { actions: assign(({ context, event }) => ({ outcomes: { ...context.outcomes, [event.stepId]: event.outcome } })) },
    USE_TEST_NUMBER: {
      actions: assign(({ context, event }) => ({
        outcomes: Object.fromEntries(context.route.steps.map((s) => [s.id, testNumberOutcome(event.suffix, s.channel)])),
      })),
    },
    SPEED: { actions: assign(({ event }) => ({ speed: Math.max(1, event.speed) })) },
    RESET: { target: '.ready', actions: assign({ world: null, past: [] }) },
  },
  states: {
    ready: {
      on: {
        SET_TTL: { actions: assign(({ event }) => ({ ttl: event.ttl })) },
        START: [
          { guard: 'badTtl', actions: assign(({ context }) => ({ error: ttlProblem(context.ttl) })) },
          { guard: 'runnable', target: 'running', actions: assign(({ context }) => started(context)) },
        ],
      },
    },
    running: {
      // A start that failed: back to the form, with its error.
      always: { guard: 'noWorld', target: 'ready' },
      initial: 'paused',
      states: {
        paused: {
          always: { guard: 'settled', target: '#simulation.finished' },
          on: { PLAY: 'playing' },
        },
        playing: {
          invoke: { src: 'ticker' },
          always: { guard: 'settled', target: '#simulation.finished' },
          on: {
            PAUSE: 'paused',
            TICK: {
              actions: assign(({ context, event }) => {
                const world = context.world as SimWorld;
                return remember(context, advanceTo(world, world.now + event.ms * context.speed, runner(context)));
              }),
            },
          },
        },
      },
      on: {
        STEP: { actions: assign(({ context }) => remember(context, stepOnce(context, context.world as SimWorld))) },
        JUMP: { actions: assign(({ context }) => remember(context, jumpPastTimer(context, context.world as SimWorld))) },
        BACK: {
          guard: 'hasPast',
          actions: assign(({ context }) => ({ world: context.past[context.past.length - 1] as SimWorld, past: context.past.slice(0, -1) })),
        },
      },
    },
    finished: {
      on: {
        BACK: {
          guard: 'hasPast',
          target: 'running.paused',
          actions: assign(({ context }) => ({ world: context.past[context.past.length - 1] as SimWorld, past: context.past.slice(0, -1) })),
        },
      },
    },
  },
});
