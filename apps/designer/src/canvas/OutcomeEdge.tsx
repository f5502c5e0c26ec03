import { BaseEdge, EdgeLabelRenderer, getBezierPath } from '@xyflow/react';
import type { Edge, EdgeProps } from '@xyflow/react';
import { memo } from 'react';

export type OutcomeFlowEdge = Edge<{ index: number; rank: number; color: string; text: string }, 'outcome'>;

/** An outcome edge; labels of parallel edges (same two steps) are stacked, not drawn over each other. */
function OutcomeEdgeView(props: EdgeProps<OutcomeFlowEdge>) {
  const [path, labelX, labelY] = getBezierPath(props);
  const rank = props.data?.rank ?? 0;
  return (
    <>
      <BaseEdge
        id={props.id}
        path={path}
        {...(props.markerEnd ? { markerEnd: props.markerEnd } : {})}
        {...(props.style ? { style: props.style } : {})}
        interactionWidth={16}
      />
      <EdgeLabelRenderer>
        <div
          className={`edge-label${props.selected ? ' selected' : ''}`}
          style={{ transform: `translate(-50%, -50%) translate(${labelX}px, ${labelY + rank * 18}px)`, color: props.data?.color }}
        >
          {props.data?.text}
        </div>
      </EdgeLabelRenderer>
    </>
  );
}

export const OutcomeEdge = memo(OutcomeEdgeView);
