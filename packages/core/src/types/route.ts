import { z } from 'zod';
import { MAX_WAIT_SECONDS, WAIT_BOUNDS, wholeSeconds } from '../validation/whole-seconds.ts';
import { CHANNELS } from './channel.ts';

/** Outcomes of a step that an edge can be taken on. */
export const ROUTE_OUTCOMES = ['undeliverable', 'permanenterror', 'expired', 'not_read'] as const;
/** One of {@link ROUTE_OUTCOMES}: how a step can end without delivering. */
export type RouteOutcome = (typeof ROUTE_OUTCOMES)[number];

/** Most steps a route may have: a cascade is a handful of channels, never a workflow engine. */
export const MAX_ROUTE_STEPS = 32;

/**
 * Step ids are labels (the compiled machine keys its states by step index, `s0`, `s1`, ...), kept
 * to a plain alphabet so they read well in paths, history and the designer.
 */
const stepId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, "_" or "-"');

/** A step's timeout or a `not_read` edge's wait, 30 days at most: one message, with the bounds, however it is wrong. */
const waitSeconds = wholeSeconds(MAX_WAIT_SECONDS, `must be ${WAIT_BOUNDS}`);

/** A step of a route: the channel it sends on, how long it waits for an outcome, and where the designer draws it. */
export const routeStepSchema = z.object({
  id: stepId,
  channel: z.enum(CHANNELS),
  /** Seconds this step may take before its `expired` outcome; absent: its share of the ttl. */
  timeoutSeconds: waitSeconds.optional(),
  /** Chat-app steps: send only when the recipient has an open session (`wheterCheckSession`). */
  requireSession: z.boolean().optional(),
  label: z.string().max(200).optional(),
  /** Where the designer draws the step. */
  position: z.object({ x: z.number(), y: z.number() }).optional(),
});

/** An edge of a route: the step taken next when a step ends on an outcome. */
export const routeEdgeSchema = z.object({
  from: stepId,
  to: stepId,
  on: z.enum(ROUTE_OUTCOMES),
  /** `not_read` edges: seconds to wait for a read after delivery. */
  afterSeconds: waitSeconds.optional(),
});

/**
 * A cascade route as data: channel steps and the edges taken on their outcomes. Validate the
 * graph with `validateRoute` and compile it with `compileRoute`.
 */
export const routeSchema = z.object({
  id: z.string().min(1).max(100).optional(),
  name: z.string().trim().min(1).max(200),
  revision: z.number().int().positive().optional(),
  start: stepId,
  steps: z.array(routeStepSchema).min(1).max(MAX_ROUTE_STEPS),
  edges: z.array(routeEdgeSchema).max(MAX_ROUTE_STEPS * ROUTE_OUTCOMES.length),
});

/** A step of a {@link Route} (see {@link routeStepSchema}). */
export type RouteStep = z.infer<typeof routeStepSchema>;
/** An edge of a {@link Route} (see {@link routeEdgeSchema}). */
export type RouteEdge = z.infer<typeof routeEdgeSchema>;
/** A cascade route as data, validated by {@link routeSchema}. */
export type Route = z.infer<typeof routeSchema>;
