import type { Route, RouteOutcome } from '@spillway/core';
import { Background, Controls, MiniMap, ReactFlow, applyNodeChanges } from '@xyflow/react';
import type { Connection, EdgeTypes, NodeChange, NodeTypes } from '@xyflow/react';
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { Selection } from '../editor/editor-machine.ts';
import type { Problem } from '../editor/route-problems.ts';
import { edgeIndexOf, toEdges, toNodes } from './flow-elements.ts';
import type { CanvasHighlight, StepFlowNode } from './flow-elements.ts';
import { OutcomeEdge } from './OutcomeEdge.tsx';
import type { OutcomeFlowEdge } from './OutcomeEdge.tsx';
import { StepNode } from './StepNode.tsx';

const nodeTypes: NodeTypes = { step: StepNode };
const edgeTypes: EdgeTypes = { outcome: OutcomeEdge };

export interface RouteCanvasProps {
  route: Route;
  /** A new key (another route, another mode) starts a fresh view, fitted to the screen. */
  viewKey: string;
  selection: Selection;
  problems: readonly Problem[];
  readOnly: boolean;
  highlight?: CanvasHighlight;
  onSelect?(selection: Selection): void;
  onConnect?(from: string, to: string, on: RouteOutcome): void;
  onDelete?(steps: string[], edges: number[]): void;
  onMove?(positions: Record<string, { x: number; y: number }>): void;
}

/**
 * The route as a React Flow graph. Nodes are kept locally while dragged (smooth on 32 steps) and
 * reported once on drop; everything else comes from the route.
 */
export function RouteCanvas(props: RouteCanvasProps) {
  const { route, selection, problems, readOnly, highlight, onSelect, onConnect, onDelete, onMove } = props;
  const built = useMemo(() => toNodes(route, selection, problems, highlight), [route, selection, problems, highlight]);
  const [nodes, setNodes] = useState<StepFlowNode[]>(built);
  useEffect(() => setNodes(built), [built]);
  const edges = useMemo(() => toEdges(route, selection, problems, highlight), [route, selection, problems, highlight]);
  const onNodesChange = useCallback((changes: NodeChange<StepFlowNode>[]) => setNodes((current) => applyNodeChanges(changes, current)), []);
  const handleConnect = useCallback(
    (c: Connection) => {
      if (c.source && c.target && c.sourceHandle) onConnect?.(c.source, c.target, c.sourceHandle as RouteOutcome);
    },
    [onConnect],
  );
  const onNodeDragStop = useCallback(
    (_: unknown, _node: StepFlowNode, dragged: StepFlowNode[]) => onMove?.(Object.fromEntries(dragged.map((n) => [n.id, n.position]))),
    [onMove],
  );
  const handleDelete = useCallback(
    ({ nodes: gone, edges: cut }: { nodes: StepFlowNode[]; edges: OutcomeFlowEdge[] }) =>
      onDelete?.(
        gone.map((n) => n.id),
        cut.map((e) => edgeIndexOf(e.id)),
      ),
    [onDelete],
  );

  return (
    <ReactFlow<StepFlowNode, OutcomeFlowEdge>
      key={props.viewKey}
      fitView
      fitViewOptions={{ padding: 0.2, maxZoom: 1.2 }}
      nodes={nodes}
      edges={edges}
      nodeTypes={nodeTypes}
      edgeTypes={edgeTypes}
      onNodesChange={onNodesChange}
      onConnect={handleConnect}
      onNodeDragStop={onNodeDragStop}
      onDelete={handleDelete}
      // Ctrl+click (⌘ on a Mac) adds a step to the canvas's selection: the panel keeps its own.
      onNodeClick={(e, node) => !(e.ctrlKey || e.metaKey) && onSelect?.({ kind: 'step', id: node.id })}
      onEdgeClick={(_, edge) => onSelect?.({ kind: 'edge', index: edgeIndexOf(edge.id) })}
      onPaneClick={() => onSelect?.(null)}
      nodesDraggable={!readOnly}
      nodesConnectable={!readOnly}
      deleteKeyCode={readOnly ? null : ['Delete', 'Backspace']}
      minZoom={0.1}
      proOptions={{ hideAttribution: true }}
    >
      <Background gap={20} />
      <Controls showInteractive={false} />
      <MiniMap pannable zoomable nodeStrokeWidth={3} />
    </ReactFlow>
  );
}
