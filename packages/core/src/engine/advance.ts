import { initialTransition, transition } from 'xstate';
import type { AnyStateMachine, StateValue } from 'xstate';
import type { EngineAction, MachineEvent } from '../machines/events.ts';
import type { PersistedMachineState } from '../types/message.ts';
import type { DeliveryStatus } from '../types/status.ts';

/** The result of one pure step of a machine. */
export interface Step {
  state: PersistedMachineState;
  status: DeliveryStatus;
  actions: EngineAction[];
  /** Whether the event moved the machine (a stale timer or receipt does not). */
  changed: boolean;
}

const ENGINE_ACTIONS = new Set(['send', 'armTimer', 'cancelTimers', 'note']);
const CACHE_LIMIT = 20_000;

/** The top-level state name, which is the `deliverystatus`. */
export function statusOf(value: PersistedMachineState['value']): DeliveryStatus {
  return (typeof value === 'string' ? value : Object.keys(value)[0]) as DeliveryStatus;
}

function toStep(snapshot: { value: unknown; context: unknown }, actions: { type: string; params?: unknown }[], changed: boolean): Step {
  const state = { value: snapshot.value as PersistedMachineState['value'], context: snapshot.context as Record<string, unknown> };
  return {
    state,
    status: statusOf(state.value),
    actions: actions.filter((a) => ENGINE_ACTIONS.has(a.type)).map((a) => ({ type: a.type, params: a.params ?? {} }) as EngineAction),
    changed,
  };
}

/**
 * Advances persisted machine states with XState's pure `initialTransition`/`transition`.
 * Contexts hold only small discrete values, so a step is a pure function of
 * (machine, state, event) and is memoized: a 5000-message request computes it once.
 *
 * The memo is a map a level (machine key, state, event), not one map under a joined key: the
 * machine key and the state's key are the same string objects event after event, whose hash V8
 * keeps, so a lookup hashes only the event's short text (a joined key was a new long string to
 * flatten and hash at every event of every message).
 */
export class MachineAdvancer {
  private readonly steps = new Map<string, Map<string, Map<string, Step>>>();
  private readonly initials = new Map<string, Step>();
  /** Steps held in all the maps: past {@link CACHE_LIMIT} they are all let go. */
  private size = 0;
  /**
   * The key of each state object seen: states are shared (the steps cached here, parsed snapshots
   * shared by the storage), so most are serialised once rather than at every event.
   */
  private readonly stateKeys = new WeakMap<PersistedMachineState, string>();

  /** The initial state of `machine` for `input`, memoized under `key`. */
  initial(key: string, machine: AnyStateMachine, input: unknown): Step {
    const cacheKey = `${key}\u0000${JSON.stringify(input)}`;
    const hit = this.initials.get(cacheKey);
    if (hit) return hit;
    const [snapshot, actions] = initialTransition(machine, input);
    const step = toStep(snapshot, actions, true);
    this.count();
    this.initials.set(cacheKey, step);
    return step;
  }

  /** The step `event` causes from `state`, memoized under `key`. */
  next(key: string, machine: AnyStateMachine, state: PersistedMachineState, event: MachineEvent): Step {
    let stateKey = this.stateKeys.get(state);
    if (stateKey === undefined) {
      stateKey = JSON.stringify(state.value) + JSON.stringify(state.context);
      this.stateKeys.set(state, stateKey);
    }
    const eventKey = JSON.stringify(event);
    let ofMachine = this.steps.get(key);
    let ofState = ofMachine?.get(stateKey);
    const hit = ofState?.get(eventKey);
    if (hit) return hit;
    const snapshot = machine.resolveState({ value: state.value as StateValue, context: state.context });
    const [nextSnapshot, actions] = transition(machine, snapshot, event);
    const changed = actions.length > 0 || JSON.stringify(nextSnapshot.value) + JSON.stringify(nextSnapshot.context) !== stateKey;
    const step = toStep(nextSnapshot, actions, changed);
    if (this.count()) ofMachine = ofState = undefined;
    if (!ofMachine) this.steps.set(key, (ofMachine = new Map()));
    if (!ofState) ofMachine.set(stateKey, (ofState = new Map()));
    ofState.set(eventKey, step);
    return step;
  }

  /** Counts a step about to be cached; past the limit, empties the memo first and answers true. */
  private count(): boolean {
    if (this.size < CACHE_LIMIT) {
      this.size++;
      return false;
    }
    this.steps.clear();
    this.initials.clear();
    this.size = 1;
    return true;
  }
}
