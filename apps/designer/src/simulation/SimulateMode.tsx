import type { Route } from '@spillway/core';
import { useMachine } from '@xstate/react';
import { useMemo } from 'react';
import { RouteCanvas } from '../canvas/RouteCanvas.tsx';
import type { CanvasHighlight } from '../canvas/flow-elements.ts';
import { routeProblems } from '../editor/route-problems.ts';
import { SidePanel } from '../layout/SidePanel.tsx';
import { SimulationPanel } from './SimulationPanel.tsx';
import { statusView } from './sim-world.ts';
import { simulationMachine } from './simulation-machine.ts';

/** The draft under simulation: the canvas lights up the step under way and the edges taken. */
export function SimulateMode({ route }: { route: Route }) {
  const [snapshot, send] = useMachine(simulationMachine, { input: { route } });
  const world = snapshot.context.world;
  const problems = useMemo(() => routeProblems(route), [route]);
  const highlight = useMemo((): CanvasHighlight => {
    if (!world) return {};
    const view = statusView(world);
    const step = (world.state.context as { step: number }).step;
    return {
      active: world.status === 'processing' ? (route.steps[step]?.id ?? null) : null,
      stepStatus: Object.fromEntries(view.steps.map((s) => [s.id, s.status])),
      taken: world.taken,
    };
  }, [world, route]);
  return (
    <>
      <main className="canvas-area">
        <RouteCanvas route={route} viewKey="simulate" selection={null} problems={problems} readOnly highlight={highlight} />
      </main>
      <SidePanel>
        <SimulationPanel route={route} snapshot={snapshot} send={send} />
      </SidePanel>
    </>
  );
}
