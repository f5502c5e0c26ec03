import type { Route, RouteOutcome } from '@spillway/core';
import { Background, Controls, MiniMap, ReactFlow, applyNodeChanges } from '@xyflow/react';
import type { Connection, EdgeTypes, NodeChange, NodePositionChange, NodeTypes } from '@xyflow/react';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { KeyboardEvent } from 'react';
import type { Selection } from '../editor/editor-machine.ts';
import type { Problem } from '../editor/route-problems.ts';
import { FIT_VIEW_OPTIONS, MINIMAP_SIZE } from './fit-view.ts';
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
  /** Steps moved: dropped after a drag, or nudged with the arrow keys (`nudged`, one press). */
  onMove?(positions: Record<string, { x: number; y: number }>, nudged: boolean): void;
}

/** The keys React Flow selects (Enter, Space) and unselects (Escape) a focused step or edge with. */
const SELECTION_KEYS: ReadonlySet<string> = new Set(['Enter', ' ', 'Escape']);

/**
 * The route as a React Flow graph. Nodes are kept locally while dragged (smooth on 32 steps) and
 * reported once on drop; everything else comes from the route. The keyboard does what the mouse
 * does: Enter on a focused step or edge selects it (its settings open), the arrow keys move a
 * selected step.
 */
export function RouteCanvas(props: RouteCanvasProps) {
  const { route, selection, problems, readOnly, highlight, onSelect, onConnect, onDelete, onMove } = props;
  const built = useMemo(() => toNodes(route, selection, problems, highlight), [route, selection, problems, highlight]);
  const [nodes, setNodes] = useState<StepFlowNode[]>(built);
  useEffect(() => setNodes(built), [built]);
  const edges = useMemo(() => toEdges(route, selection, problems, highlight), [route, selection, problems, highlight]);
  // Whether the positions coming in are a drag's: its last ones are its drop, any others a nudge.
  const dragging = useRef(false);
  const onNodesChange = useCallback(
    (changes: NodeChange<StepFlowNode>[]) => {
      setNodes((current) => applyNodeChanges(changes, current));
      const moves = changes.filter((c): c is NodePositionChange => c.type === 'position' && c.position !== undefined);
      if (moves.some((c) => c.dragging)) dragging.current = true;
      // A move ends with positions no longer dragging: a drop, or an arrow key on a selected step
      // (which React Flow moves without a drag). Either is the route's: reported, undoable, saved.
      const ended = moves.filter((c) => c.dragging === false);
      if (ended.length === 0) return;
      onMove?.(Object.fromEntries(ended.map((c) => [c.id, c.position as { x: number; y: number }])), !dragging.current);
      dragging.current = false;
    },
    [onMove],
  );
  // React Flow selects a focused element with Enter or Space itself, but calls no click handler: the
  // panel follows here, or a keyboard user could never open a step's settings.
  const onKeyDown = useCallback(
    (e: KeyboardEvent<HTMLDivElement>) => {
      if (!onSelect || !SELECTION_KEYS.has(e.key) || !(e.target instanceof Element)) return;
      // The focused step or edge itself (its `data-id`), not a button of the controls.
      const id = e.target.getAttribute('data-id');
      const step = e.target.classList.contains('react-flow__node');
      if (id === null || !(step || e.target.classList.contains('react-flow__edge'))) return;
      if (e.key === 'Escape') onSelect(null);
      else onSelect(step ? { kind: 'step', id } : { kind: 'edge', index: edgeIndexOf(id) });
    },
    [onSelect],
  );
  const handleConnect = useCallback(
    (c: Connection) => {
      if (c.source && c.target && c.sourceHandle) onConnect?.(c.source, c.target, c.sourceHandle as RouteOutcome);
    },
    [onConnect],
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
      fitViewOptions={FIT_VIEW_OPTIONS}
      nodes={nodes}
      edges={edges}
      nodeTypes={nodeTypes}
      edgeTypes={edgeTypes}
      onNodesChange={onNodesChange}
      onConnect={handleConnect}
      onKeyDown={onKeyDown}
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
      <Controls showInteractive={false} fitViewOptions={FIT_VIEW_OPTIONS} />
      <MiniMap pannable zoomable nodeStrokeWidth={3} style={MINIMAP_SIZE} />
    </ReactFlow>
  );
}
