import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PANEL_WIDTHS,
  PANEL_LIMITS,
  PANEL_WIDTHS_KEY,
  fitPanelWidths,
  panelRange,
  readPanelWidths,
  writePanelWidths,
} from './panel-widths.ts';

const storageWith = (value: string | null) => ({ getItem: (key: string) => (key === PANEL_WIDTHS_KEY ? value : null) });

describe('readPanelWidths', () => {
  it('reads the kept widths, each within its limits', () => {
    expect(readPanelWidths(storageWith('{"left":300,"side":420}'))).toEqual({ left: 300, side: 420 });
    expect(readPanelWidths(storageWith('{"left":5,"side":99999}'))).toEqual({ left: PANEL_LIMITS.left.min, side: PANEL_LIMITS.side.max });
  });

  it('falls back to the defaults for what is missing, unreadable or of the wrong type', () => {
    for (const raw of [null, '', 'not json', '[]', '42', 'null', '{"left":"300","side":null}', '{"left":1e999}']) {
      expect(readPanelWidths(storageWith(raw))).toEqual(DEFAULT_PANEL_WIDTHS);
    }
    expect(readPanelWidths(storageWith('{"side":500}'))).toEqual({ left: DEFAULT_PANEL_WIDTHS.left, side: 500 });
    expect(readPanelWidths(undefined)).toEqual(DEFAULT_PANEL_WIDTHS);
  });

  it('survives a storage that throws', () => {
    const refusing = {
      getItem: (): string | null => {
        throw new Error('SecurityError');
      },
      setItem: () => {
        throw new Error('QuotaExceededError');
      },
    };
    expect(readPanelWidths(refusing)).toEqual(DEFAULT_PANEL_WIDTHS);
    expect(() => writePanelWidths(refusing, DEFAULT_PANEL_WIDTHS)).not.toThrow();
  });
});

describe('fitPanelWidths', () => {
  it('draws the wanted widths where the window has room for them and the canvas', () => {
    expect(fitPanelWidths({ left: 300, side: 420 }, 1440)).toEqual({ left: 300, side: 420 });
  });

  it('leaves the canvas its minimum on a narrow window: the route list gives way first, then the side panel, down to their minimums', () => {
    // 1024 − 2 separators − 320 canvas = 702 for the panels.
    expect(fitPanelWidths({ left: 400, side: 400 }, 1024)).toEqual({ left: 302, side: 400 });
    expect(fitPanelWidths({ left: 400, side: 700 }, 1024)).toEqual({ left: 160, side: 542 });
    expect(fitPanelWidths({ left: 400, side: 700 }, 600)).toEqual({ left: 160, side: 260 });
  });
});

describe('panelRange', () => {
  it('lets a panel grow up to its maximum or until the canvas would go below its minimum', () => {
    expect(panelRange('left', { left: 240, side: 340 }, 1440)).toEqual({ min: 160, max: 480 });
    expect(panelRange('side', { left: 480, side: 340 }, 1440)).toEqual({ min: 260, max: 638 });
    expect(panelRange('side', { left: 160, side: 260 }, 600)).toEqual({ min: 260, max: 260 });
  });
});
