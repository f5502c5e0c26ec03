import type { PersistedMachineState } from '../types/message.ts';

/** Whether a state value has a leaf state called `name` (`{ processing: { s2: 'reading' } }` has `reading`). */
export function hasStateLeaf(value: PersistedMachineState['value'], name: string): boolean {
  if (typeof value === 'string') return value === name;
  return Object.values(value).some(
    (child) =>
      (typeof child === 'string' || (typeof child === 'object' && child !== null)) &&
      hasStateLeaf(child as PersistedMachineState['value'], name),
  );
}
