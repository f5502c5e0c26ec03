import { describe, expect, it } from 'vitest';
import { blankRoute, copy, paste } from './route-edits.ts';

describe('paste', () => {
  it('lands a second paste of the same step clear of the first instead of on top of it', () => {
    const route = blankRoute();
    const copied = copy(route, ['sms']);
    const once = paste(route, copied).route;
    const twice = paste(once, copied).route;
    const thrice = paste(twice, copied).route;
    const positions = thrice.steps.map((s) => `${s.position?.x},${s.position?.y}`);
    expect(thrice.steps.map((s) => s.id)).toEqual(['sms', 'sms_2', 'sms_3', 'sms_4']);
    expect(new Set(positions).size).toBe(4);
    expect(positions).toEqual(['0,0', '40,40', '80,80', '120,120']);
  });

  it('moves a pasted group as one, keeping its shape, until no step of it lands on an existing one', () => {
    const route = {
      ...blankRoute(),
      steps: [
        { id: 'sms', channel: 'sms' as const, position: { x: 0, y: 0 } },
        { id: 'rcs', channel: 'rcs' as const, position: { x: 0, y: 140 } },
        // Sits where the first paste of `sms` would go.
        { id: 'chatapp', channel: 'chatapp' as const, position: { x: 40, y: 40 } },
      ],
    };
    const pasted = paste(route, copy(route, ['sms', 'rcs']));
    expect(pasted.route.steps.slice(3).map((s) => s.position)).toEqual([
      { x: 80, y: 80 },
      { x: 80, y: 220 },
    ]);
  });
});
