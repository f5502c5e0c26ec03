import { ROUTE_OUTCOMES } from '@spillway/core';
import { Handle, Position } from '@xyflow/react';
import type { NodeProps } from '@xyflow/react';
import { memo } from 'react';
import { CHANNEL_NAMES } from '../panels/channel-names.ts';
import { OUTCOME_COLORS, OUTCOME_LABELS, OUTCOME_SHORT_LABELS, stepMeta } from './flow-elements.ts';
import type { StepFlowNode } from './flow-elements.ts';

/** Where the outcome handles sit along a step's bottom edge, % of its width, left to right. */
const handleLeft = (i: number) => `${12 + i * 25}%`;

/**
 * A channel step: its target handle on top, one typed source handle per outcome below, each
 * named by a word over it (its tooltip has the whole outcome).
 */
function StepNodeView({ data, selected }: NodeProps<StepFlowNode>) {
  const { step, isStart, problems, active, status, note } = data;
  const meta = stepMeta(step);
  const classes = [
    'step-node',
    `channel-${step.channel}`,
    selected ? 'selected' : '',
    problems.length ? 'has-problem' : '',
    active ? 'active' : '',
    status ? `status-${status}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return (
    <div className={classes} data-testid={`step-${step.id}`} title={problems.join('\n')}>
      <Handle type="target" position={Position.Top} className="handle-in" />
      <div className="step-head">
        <span className="step-channel">{CHANNEL_NAMES[step.channel]}</span>
        {isStart && <span className="badge start">start</span>}
        {status && <span className={`badge status ${status}`}>{status}</span>}
      </div>
      <div className="step-title" title={step.label || step.id}>
        {step.label || step.id}
      </div>
      {meta && <div className="step-meta">{meta}</div>}
      {problems.length > 0 && <div className="step-problem">⚠ {problems[0]}</div>}
      {note && (
        <div className="step-note" data-testid={`note-${step.id}`}>
          {note}
        </div>
      )}
      <div className="handle-labels" aria-hidden="true">
        {ROUTE_OUTCOMES.map((on, i) => (
          <span key={on} style={{ left: handleLeft(i), color: OUTCOME_COLORS[on] }} data-testid={`handle-label-${step.id}-${on}`}>
            {OUTCOME_SHORT_LABELS[on]}
          </span>
        ))}
      </div>
      <div className="handles-out">
        {ROUTE_OUTCOMES.map((on, i) => (
          <Handle
            key={on}
            id={on}
            type="source"
            position={Position.Bottom}
            className={`handle-out handle-${on}`}
            style={{ left: handleLeft(i), background: OUTCOME_COLORS[on] }}
            title={OUTCOME_LABELS[on]}
            data-testid={`handle-${step.id}-${on}`}
          />
        ))}
      </div>
    </div>
  );
}

export const StepNode = memo(StepNodeView);
