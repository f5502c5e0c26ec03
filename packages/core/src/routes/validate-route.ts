import { SpillwayError } from '../errors.ts';
import type { ErrorDetail } from '../errors.ts';
import { issuesToDetails } from '../validation/issue-details.ts';
import { routeSchema } from '../types/route.ts';
import type { Route } from '../types/route.ts';
import type { ChannelId } from '../types/channel.ts';

/** Channels that never report a read, so a `not_read` edge from them would always fire. */
const NO_READ_RECEIPTS: ReadonlySet<ChannelId> = new Set(['sms', 'flashcall']);

/**
 * Checks a route's graph and answers every problem, addressed by path and naming the step
 * (empty: the route is valid). Checks: the start exists; step ids are unique; edges join known
 * steps; a step has at most one edge per outcome; `requireSession` only on chat steps; `not_read` edges have `afterSeconds > 0` and
 * leave a channel that reports reads; every step is reachable from the start; there is no cycle.
 *
 * Any cycle is rejected: the compiled machine keeps no loop counter (its context holds only the
 * current step and its retries), so a cycle could resend forever. With no cycle every path ends,
 * since a step without an edge for an outcome ends the cascade with that outcome's status.
 */
export function validateRoute(route: Route): ErrorDetail[] {
  const errors: ErrorDetail[] = [];
  const index = new Map<string, number>();
  route.steps.forEach((step, i) => {
    if (step.requireSession && NO_READ_RECEIPTS.has(step.channel)) {
      errors.push({ path: `steps[${i}].requireSession`, message: `step '${step.id}' (${step.channel}) has no chat session to require` });
    }
    if (index.has(step.id)) errors.push({ path: `steps[${i}].id`, message: `duplicate step id '${step.id}'` });
    else index.set(step.id, i);
  });
  if (!index.has(route.start)) errors.push({ path: 'start', message: `start step '${route.start}' is not a step of the route` });

  const next = new Map<string, string[]>();
  const seen = new Set<string>();
  route.edges.forEach((edge, i) => {
    const from = route.steps[index.get(edge.from) ?? -1];
    if (!from) errors.push({ path: `edges[${i}].from`, message: `edge from unknown step '${edge.from}'` });
    if (!index.has(edge.to))
      errors.push({ path: `edges[${i}].to`, message: `edge from '${edge.from}' leads to unknown step '${edge.to}'` });
    const key = `${edge.from}\u0000${edge.on}`;
    if (seen.has(key)) errors.push({ path: `edges[${i}].on`, message: `step '${edge.from}' has more than one '${edge.on}' edge` });
    seen.add(key);
    if (edge.on === 'not_read') {
      if (!edge.afterSeconds || edge.afterSeconds <= 0) {
        errors.push({ path: `edges[${i}].afterSeconds`, message: `not_read edge from '${edge.from}' needs afterSeconds > 0` });
      }
      if (from && NO_READ_RECEIPTS.has(from.channel)) {
        errors.push({
          path: `edges[${i}].on`,
          message: `step '${edge.from}' (${from.channel}) never reports a read, so not_read cannot be used`,
        });
      }
    } else if (edge.afterSeconds !== undefined) {
      errors.push({
        path: `edges[${i}].afterSeconds`,
        message: `afterSeconds applies to not_read edges only (edge from '${edge.from}' on '${edge.on}')`,
      });
    }
    if (from && index.has(edge.to)) next.set(edge.from, [...(next.get(edge.from) ?? []), edge.to]);
  });

  if (index.has(route.start)) {
    const reached = new Set<string>([route.start]);
    const queue = [route.start];
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      for (const to of next.get(id) ?? []) {
        if (!reached.has(to)) {
          reached.add(to);
          queue.push(to);
        }
      }
    }
    route.steps.forEach((step, i) => {
      if (!reached.has(step.id) && index.get(step.id) === i) {
        errors.push({ path: `steps[${i}]`, message: `step '${step.id}' is not reachable from the start '${route.start}'` });
      }
    });
  }

  const cycle = findCycle([...index.keys()], next);
  if (cycle) {
    const first = cycle[0] as string;
    errors.push({
      path: `steps[${index.get(first)}]`,
      message: `step '${first}' is on a cycle (${cycle.join(' → ')} → ${first}); routes must not loop`,
    });
  }
  return errors;
}

/** One cycle of the graph as the list of its step ids, or null when the graph is acyclic. */
function findCycle(ids: string[], next: Map<string, string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (id: string): string[] | null => {
    state.set(id, 'open');
    stack.push(id);
    for (const to of next.get(id) ?? []) {
      const s = state.get(to);
      if (s === 'open') return stack.slice(stack.indexOf(to));
      if (s === undefined) {
        const found = visit(to);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(id, 'done');
    return null;
  };
  for (const id of ids) {
    if (!state.has(id)) {
      const found = visit(id);
      if (found) return found;
    }
  }
  return null;
}

/**
 * Parses and validates a route from untrusted input (a request body, a designer draft).
 * @throws SpillwayError `validation_failed` listing every problem (`steps[2]`, `edges[1].to`).
 */
export function assertValidRoute(input: unknown): Route {
  const parsed = routeSchema.safeParse(input);
  if (!parsed.success) throw new SpillwayError('validation_failed', 'The route is invalid', issuesToDetails(parsed.error.issues));
  const errors = validateRoute(parsed.data);
  if (errors.length > 0) throw new SpillwayError('validation_failed', 'The route is invalid', errors);
  return parsed.data;
}
