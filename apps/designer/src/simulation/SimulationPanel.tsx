import { MAX_CASCADE_TTL } from '@spillway/core';
import type { Route } from '@spillway/core';
import { useMemo } from 'react';
import type { ActorRefFrom, SnapshotFrom } from 'xstate';
import { CHANNEL_NAMES } from '../panels/channel-names.ts';
import { STEP_OUTCOMES, TEST_NUMBERS, statusView } from './sim-world.ts';
import { inRouteOrder, routeOrder } from './route-order.ts';
import type { StepOutcome } from './sim-world.ts';
import { ttlProblem } from './simulation-machine.ts';
import type { simulationMachine } from './simulation-machine.ts';
import { StatusRecord, formatTime } from './StatusRecord.tsx';

const OUTCOME_NAMES: Record<StepOutcome, string> = {
  delivered: 'delivered',
  read: 'delivered, then read',
  undeliverable: 'undeliverable',
  permanent: 'permanent error',
  no_report: 'no report',
  not_on_channel: 'not on this channel',
  throttled: 'throttled',
};

const SPEEDS = [1, 10, 60, 600, 3600];

export interface SimulationPanelProps {
  route: Route;
  snapshot: SnapshotFrom<typeof simulationMachine>;
  send: ActorRefFrom<typeof simulationMachine>['send'];
}

/** Outcome per step, the time-travel clock, and the status record the cascade would have. */
export function SimulationPanel({ route, snapshot, send }: SimulationPanelProps) {
  const { context } = snapshot;
  const world = context.world;
  const ready = snapshot.matches('ready');
  const playing = snapshot.matches({ running: 'playing' });
  const finished = snapshot.matches('finished');
  const badTtl = ttlProblem(context.ttl);
  const order = useMemo(() => routeOrder(route), [route]);
  return (
    <section className="panel-section simulation" aria-label="Simulation">
      <h3>Simulate</h3>
      {context.error && context.error !== badTtl && <p className="error">{context.error}</p>}
      <label>
        As a test number
        <select
          name="test-number"
          defaultValue=""
          onChange={(e) => e.target.value && send({ type: 'USE_TEST_NUMBER', suffix: e.target.value })}
        >
          <option value="">pick outcomes per step…</option>
          {TEST_NUMBERS.map(([suffix, what]) => (
            <option key={suffix} value={suffix}>
              999…{suffix}: {what}
            </option>
          ))}
        </select>
      </label>
      <table className="outcomes">
        <tbody>
          {inRouteOrder(route.steps, order).map((s) => (
            <tr key={s.id}>
              <td>
                {s.label || s.id} <small>{CHANNEL_NAMES[s.channel]}</small>
              </td>
              <td>
                <select
                  name={`outcome-${s.id}`}
                  value={context.outcomes[s.id] ?? 'delivered'}
                  onChange={(e) => send({ type: 'SET_OUTCOME', stepId: s.id, outcome: e.target.value as StepOutcome })}
                >
                  {STEP_OUTCOMES.map((o) => (
                    <option key={o} value={o}>
                      {OUTCOME_NAMES[o]}
                    </option>
                  ))}
                </select>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {ready ? (
        <>
          <div className="row">
            <label>
              ttl, s
              <input
                name="sim-ttl"
                type="number"
                min={1}
                max={MAX_CASCADE_TTL}
                step={1}
                placeholder="none"
                value={context.ttl ?? ''}
                aria-invalid={badTtl !== null}
                aria-describedby={badTtl ? 'sim-ttl-problem' : undefined}
                onChange={(e) => send({ type: 'SET_TTL', ttl: e.target.value ? Number(e.target.value) : null })}
              />
            </label>
            <button
              type="button"
              className="primary"
              onClick={() => send({ type: 'START' })}
              disabled={!context.machine || badTtl !== null}
            >
              Start
            </button>
          </div>
          {badTtl && (
            <p className="error" id="sim-ttl-problem" role="alert">
              {badTtl}
            </p>
          )}
        </>
      ) : (
        <>
          <div className="clock" data-testid="sim-clock">
            {world ? formatTime(new Date(world.now).toISOString(), world.started) : ''} {finished ? '· settled' : ''}
          </div>
          <div className="row">
            <button type="button" onClick={() => send({ type: 'BACK' })} disabled={context.past.length === 0} title="Back one step in time">
              ◀ Back
            </button>
            <button type="button" onClick={() => send({ type: 'STEP' })} disabled={finished}>
              Step ▶
            </button>
            <button type="button" onClick={() => send({ type: 'JUMP' })} disabled={finished} title="Jump past the next timeout">
              Jump past timeout
            </button>
            {playing ? (
              <button type="button" onClick={() => send({ type: 'PAUSE' })}>
                Pause
              </button>
            ) : (
              <button type="button" onClick={() => send({ type: 'PLAY' })} disabled={finished}>
                Play
              </button>
            )}
            <select name="speed" value={context.speed} onChange={(e) => send({ type: 'SPEED', speed: Number(e.target.value) })}>
              {SPEEDS.map((s) => (
                <option key={s} value={s}>
                  {s}×
                </option>
              ))}
            </select>
            <button type="button" onClick={() => send({ type: 'RESET' })}>
              Reset
            </button>
          </div>
          {world && <StatusRecord record={statusView(world)} origin={world.started} order={order} />}
        </>
      )}
    </section>
  );
}
