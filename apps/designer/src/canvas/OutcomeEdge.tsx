import { BaseEdge, EdgeLabelRenderer, getBezierPath } from '@xyflow/react';
import type { Edge, EdgeProps } from '@xyflow/react';
import { memo } from 'react';

export type OutcomeFlowEdge = Edge<
  {
    index: number;
    /** Where the label sits below (or above, negative) the edge's middle, px: parallel edges' labels are stacked around it. */
    labelOffset: number;
    /** The side of the edge the label is drawn on: left of it (-1, its end at the edge), centred (0), right (1). */
    labelSide: -1 | 0 | 1;
    color: string;
    text: string;
  },
  'outcome'
>;

/** Space between a label drawn beside its edge and the edge's middle, px. */
const LABEL_GAP = 4;

/**
 * An outcome edge. The labels of parallel edges (the same two steps) are stacked around the middle
 * of the gap between them, so that none is drawn over another, nor (the stack reaching only as far
 * from the middle as it must) over either step; the outermost two are drawn beside their own
 * edges, outwards, so that neither lies over the other's edge.
 */
function OutcomeEdgeView(props: EdgeProps<OutcomeFlowEdge>) {
  const [path, labelX, labelY] = getBezierPath(props);
  const offset = props.data?.labelOffset ?? 0;
  const side = props.data?.labelSide ?? 0;
  // A label beside its edge keeps a few px off it; a centred one sits on it.
  const anchor = side === 0 ? 'translate(-50%, -50%)' : `translate(${side < 0 ? '-100%' : '0'}, -50%) translate(${side * LABEL_GAP}px, 0)`;
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
          data-testid={`edge-label-${props.id}`}
          style={{ transform: `translate(${labelX}px, ${labelY + offset}px) ${anchor}`, color: props.data?.color }}
        >
          {props.data?.text}
        </div>
      </EdgeLabelRenderer>
    </>
  );
}

export const OutcomeEdge = memo(OutcomeEdgeView);
