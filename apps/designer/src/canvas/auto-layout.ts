import { Graph, layout } from '@dagrejs/dagre';
import type { Route } from '@spillway/core';

/** Size of a step node on the canvas, px (StepNode's CSS keeps to it). */
export const STEP_SIZE = { width: 220, height: 96 } as const;

/**
 * Positions every step top-down along the route's edges (dagre's layered layout): the start on
 * top, each outcome edge pointing down. Answers the route with new `position`s.
 */
export function autoLayout(route: Route): Route {
  const graph = new Graph({ multigraph: true });
  graph.setGraph({ rankdir: 'TB', nodesep: 60, ranksep: 90, marginx: 20, marginy: 20 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const step of route.steps) graph.setNode(step.id, { width: STEP_SIZE.width, height: STEP_SIZE.height });
  route.edges.forEach((edge, i) => {
    if (graph.hasNode(edge.from) && graph.hasNode(edge.to)) graph.setEdge(edge.from, edge.to, {}, `e${i}`);
  });
  layout(graph);
  return {
    ...route,
    steps: route.steps.map((step) => {
      const node = graph.node(step.id);
      // dagre answers centres; React Flow places nodes by their top-left corner.
      return node
        ? { ...step, position: { x: Math.round(node.x - STEP_SIZE.width / 2), y: Math.round(node.y - STEP_SIZE.height / 2) } }
        : step;
    }),
  };
}
