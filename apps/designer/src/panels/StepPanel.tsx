import { CHANNELS } from '@spillway/core';
import type { ChannelId, RouteStep } from '@spillway/core';
import { useState } from 'react';
import { CHANNEL_NAMES, SESSION_CHANNELS } from './channel-names.ts';

export interface StepPanelProps {
  step: RouteStep;
  isStart: boolean;
  readOnly: boolean;
  /** Why the step cannot take this id (one another step has), or null. */
  idProblem(id: string): string | null;
  onChange(patch: Partial<RouteStep>): void;
  onMakeStart(): void;
  onDelete(): void;
}

/** Settings of one step: id, channel, label, timeout (or ttl share), session requirement. */
export function StepPanel({ step, isStart, readOnly, idProblem, onChange, onMakeStart, onDelete }: StepPanelProps) {
  const [idError, setIdError] = useState<string | null>(null);
  const rename = (input: HTMLInputElement) => {
    const id = input.value.trim();
    if (id === step.id) return setIdError(null);
    const problem = idProblem(id);
    setIdError(problem && `${problem}: the step keeps its id '${step.id}'`);
    if (problem) input.value = step.id;
    else onChange({ id });
  };
  return (
    <section className="panel-section" aria-label="Step">
      <h3>Step</h3>
      <fieldset disabled={readOnly}>
        <label>
          Id
          <input
            name="step-id"
            defaultValue={step.id}
            key={step.id}
            aria-invalid={idError !== null}
            aria-describedby={idError ? 'step-id-problem' : undefined}
            onBlur={(e) => rename(e.target)}
          />
        </label>
        {idError && (
          <p className="error" id="step-id-problem" role="alert">
            {idError}
          </p>
        )}
        <label>
          Channel
          <select name="step-channel" value={step.channel} onChange={(e) => onChange({ channel: e.target.value as ChannelId })}>
            {CHANNELS.map((c) => (
              <option key={c} value={c}>
                {CHANNEL_NAMES[c]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Label
          <input name="step-label" value={step.label ?? ''} onChange={(e) => onChange({ label: e.target.value || undefined })} />
        </label>
        <label>
          Timeout, s <small>(empty: its share of the ttl)</small>
          <input
            name="step-timeout"
            type="number"
            min={1}
            value={step.timeoutSeconds ?? ''}
            onChange={(e) => onChange({ timeoutSeconds: e.target.value === '' ? undefined : Number(e.target.value) })}
          />
        </label>
        {SESSION_CHANNELS.has(step.channel) || step.requireSession ? (
          <label className="check">
            <input
              type="checkbox"
              checked={step.requireSession ?? false}
              onChange={(e) => onChange({ requireSession: e.target.checked || undefined })}
            />
            Send only with an open chat session
          </label>
        ) : null}
        <div className="row">
          <button type="button" onClick={onMakeStart} disabled={isStart}>
            {isStart ? 'Start step' : 'Make start'}
          </button>
          <button type="button" className="danger" onClick={onDelete}>
            Delete step
          </button>
        </div>
      </fieldset>
    </section>
  );
}
