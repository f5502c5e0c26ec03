import { BaseEdge, EdgeLabelRenderer, getBezierPath } from '@xyflow/react';
import type { Edge, EdgeProps } from '@xyflow/react';
import { memo } from 'react';

export type OutcomeFlowEdge = Edge<
  {
    index: number;
    /** Where the label sits below (or above, negative) the edge's middle, px: parallel edges' labels are stacked around it. */
    labelOffset: number;
    color: string;
    text: string;
  },
  'outcome'
>;

/**
 * An outcome edge. The labels of parallel edges (the same two steps) are stacked around the middle
 * of the gap between them, so that none is drawn over another, nor (the stack reaching only as far
 * from the middle as it must) over either step.
 */
function OutcomeEdgeView(props: EdgeProps<OutcomeFlowEdge>) {
  const [path, labelX, labelY] = getBezierPath(props);
  const offset = props.data?.labelOffset ?? 0;
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
          style={{ transform: `translate(-50%, -50%) translate(${labelX}px, ${labelY + offset}px)`, color: props.data?.color }}
        >
          {props.data?.text}
        </div>
      </EdgeLabelRenderer>
    </>
  );
}

export const OutcomeEdge = memo(OutcomeEdgeView);
