import { ROUTE_OUTCOMES } from '@spillway/core';
import type { Route, RouteOutcome, RouteStep } from '@spillway/core';
import { MarkerType } from '@xyflow/react';
import type { Node } from '@xyflow/react';
import type { OutcomeFlowEdge } from './OutcomeEdge.tsx';
import { selectedStepIds } from '../editor/editor-machine.ts';
import type { Selection } from '../editor/editor-machine.ts';
import type { Problem } from '../editor/route-problems.ts';

/** What the canvas lights up besides the draft: a simulation's or a watched cascade's progress. */
export interface CanvasHighlight {
  /** The step under way. */
  active?: string | null;
  /** Status per step id (`delivered`, `undeliverable`, `processing`, ...). */
  stepStatus?: Record<string, string | null>;
  /** Indexes of the edges taken. */
  taken?: readonly number[];
  /** A line of figures under a step (traffic). */
  stepNotes?: Record<string, string>;
  /** Figures added to an edge's label, by edge index. */
  edgeNotes?: Record<number, string>;
}

export interface StepNodeData extends Record<string, unknown> {
  step: RouteStep;
  isStart: boolean;
  problems: string[];
  active: boolean;
  status: string | null;
  note: string | null;
}

export type StepFlowNode = Node<StepNodeData, 'step'>;

/** Colours of the outcome edges (and of their handles on a step). */
export const OUTCOME_COLORS: Record<RouteOutcome, string> = {
  undeliverable: '#d97706',
  permanenterror: '#dc2626',
  expired: '#7c3aed',
  not_read: '#0891b2',
};

export const OUTCOME_LABELS: Record<RouteOutcome, string> = {
  undeliverable: 'undeliverable',
  permanenterror: 'permanent error',
  expired: 'expired',
  not_read: 'not read',
};

/** The word written over each outcome handle of a step, short enough for the handles' 55 px apart. */
export const OUTCOME_SHORT_LABELS: Record<RouteOutcome, string> = {
  undeliverable: 'undeliv.',
  permanenterror: 'perm. err',
  expired: 'expired',
  not_read: 'not read',
};

export function toNodes(route: Route, selection: Selection, problems: readonly Problem[], highlight: CanvasHighlight = {}): StepFlowNode[] {
  const selected = new Set(selectedStepIds(selection));
  return route.steps.map((step, i) => ({
    id: step.id,
    type: 'step',
    position: step.position ?? { x: 0, y: i * 140 },
    selected: selected.has(step.id),
    data: {
      step,
      isStart: route.start === step.id,
      problems: problems.filter((p) => p.target.kind === 'step' && p.target.id === step.id).map((p) => p.message),
      active: highlight.active === step.id,
      status: highlight.stepStatus?.[step.id] ?? null,
      note: highlight.stepNotes?.[step.id] ?? null,
    },
  }));
}

/**
 * The line under a step's title: its timeout, and whether it needs a session; empty when neither
 * (the line is then left out). A step without a timeout gets a share of the cascade's ttl, a
 * figure only a cascade has, so the canvas names no value it does not know.
 */
export function stepMeta(step: RouteStep): string {
  // 0 is a timeout too (an invalid one, flagged as a problem): shown as it is.
  return [step.timeoutSeconds === undefined ? null : `timeout ${step.timeoutSeconds} s`, step.requireSession ? 'session' : null]
    .filter(Boolean)
    .join(' · ');
}

/**
 * How far apart the labels of parallel edges are stacked, px on the canvas: a label's line
 * (`.edge-label`'s 14 px line-height) and a 4 px gap.
 */
export const EDGE_LABEL_SPACING = 18;

/**
 * Which side of its edge a label is drawn on, among parallel edges leaving by the handles
 * `handles`: the leftmost edge's label on its left (-1), the rightmost's on its right (1), so that
 * neither covers the other edge however long the label grows (traffic figures); others, and a
 * lone edge's, centred on it (0).
 */
function labelSideOf(handle: number, handles: readonly number[]): -1 | 0 | 1 {
  const distinct = new Set(handles);
  if (distinct.size < 2) return 0;
  if (handle === Math.min(...distinct)) return -1;
  if (handle === Math.max(...distinct)) return 1;
  return 0;
}

/** Edge ids carry their index in `route.edges`: `e3`. */
export const edgeIndexOf = (id: string): number => Number(id.slice(1));

export function toEdges(
  route: Route,
  selection: Selection,
  problems: readonly Problem[],
  highlight: CanvasHighlight = {},
): OutcomeFlowEdge[] {
  const taken = new Set(highlight.taken ?? []);
  const dimmed = highlight.taken !== undefined;
  const pairOf = (edge: { from: string; to: string }) => `${edge.from}\u0000${edge.to}`;
  // Parallel edges (the same two steps) share a middle: their labels are stacked around it.
  const parallel = new Map<string, number>();
  for (const edge of route.edges) parallel.set(pairOf(edge), (parallel.get(pairOf(edge)) ?? 0) + 1);
  // Their outcome handles, left to right: the outermost edges' labels are drawn on their outer side.
  const handles = new Map<string, number[]>();
  for (const edge of route.edges) handles.set(pairOf(edge), [...(handles.get(pairOf(edge)) ?? []), ROUTE_OUTCOMES.indexOf(edge.on)]);
  const ranks = new Map<string, number>();
  return route.edges.map((edge, i): OutcomeFlowEdge => {
    const pair = pairOf(edge);
    const rank = ranks.get(pair) ?? 0;
    ranks.set(pair, rank + 1);
    const labelOffset = (rank - ((parallel.get(pair) ?? 1) - 1) / 2) * EDGE_LABEL_SPACING;
    const labelSide = labelSideOf(ROUTE_OUTCOMES.indexOf(edge.on), handles.get(pair) ?? []);
    const invalid = problems.some((p) => p.target.kind === 'edge' && p.target.index === i);
    const color = invalid ? '#e11d48' : OUTCOME_COLORS[edge.on];
    const base = edge.on === 'not_read' ? `not read ${edge.afterSeconds ?? '?'} s` : OUTCOME_LABELS[edge.on];
    const note = highlight.edgeNotes?.[i];
    const label = note ? `${base} · ${note}` : base;
    return {
      id: `e${i}`,
      type: 'outcome',
      source: edge.from,
      target: edge.to,
      sourceHandle: edge.on,
      selected: selection?.kind === 'edge' && selection.index === i,
      animated: taken.has(i),
      className: [invalid ? 'edge-invalid' : '', taken.has(i) ? 'edge-taken' : '', dimmed && !taken.has(i) ? 'edge-dimmed' : '']
        .join(' ')
        .trim(),
      style: { stroke: color, strokeWidth: taken.has(i) ? 4 : 2, ...(invalid ? { strokeDasharray: '6 4' } : {}) },
      markerEnd: { type: MarkerType.ArrowClosed, color },
      data: { index: i, labelOffset, labelSide, color, text: label },
    };
  });
}
