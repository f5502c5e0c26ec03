export { createSimulator, simulatedOutcome } from './simulator/simulator.ts';
export type { SimulatorOptions, SimulatedOutcome } from './simulator/simulator.ts';
