/** The two resizable panels: the route list on the left, the mode's panel on the right. */
export type PanelName = 'left' | 'side';

/** Widths in CSS pixels. */
export type PanelWidths = Record<PanelName, number>;

export interface PanelLimits {
  min: number;
  max: number;
}

/** What each panel starts at, and what a double-click on its separator restores. */
export const DEFAULT_PANEL_WIDTHS: Readonly<PanelWidths> = { left: 240, side: 340 };

/** How narrow and how wide each panel may be made. */
export const PANEL_LIMITS: Readonly<Record<PanelName, PanelLimits>> = {
  left: { min: 160, max: 480 },
  side: { min: 260, max: 720 },
};

/** The canvas keeps at least this much: on a narrow window the panels give way, the route list first. */
export const CANVAS_MIN_WIDTH = 320;

/** Each separator's own width (the 1 px line between a panel and the canvas, `styles.css`). */
export const SEPARATOR_WIDTH = 1;

/** Where the chosen widths are kept, across reloads and tabs. */
export const PANEL_WIDTHS_KEY = 'spillway.designer.panels';

const clamp = (value: number, min: number, max: number) => Math.min(Math.max(Math.round(value), min), Math.max(min, max));

/** What the panels may take of a window `room` pixels wide: all but the separators and the canvas's minimum. */
const panelRoom = (room: number) => room - 2 * SEPARATOR_WIDTH - CANVAS_MIN_WIDTH;

/**
 * The widths drawn for the wanted ones in a window `room` pixels wide: each within its limits, and
 * together leaving the canvas its minimum where the window allows. The route list gives way before
 * the side panel (a step's settings need the room more); neither goes below its minimum.
 */
export function fitPanelWidths(wanted: PanelWidths, room: number): PanelWidths {
  const side = clamp(wanted.side, PANEL_LIMITS.side.min, Math.min(PANEL_LIMITS.side.max, panelRoom(room) - PANEL_LIMITS.left.min));
  const left = clamp(wanted.left, PANEL_LIMITS.left.min, Math.min(PANEL_LIMITS.left.max, panelRoom(room) - side));
  return { left, side };
}

/** How far `panel` may be resized now, the other panel staying as drawn (`widths` as fitted). */
export function panelRange(panel: PanelName, widths: PanelWidths, room: number): PanelLimits {
  const other = panel === 'left' ? widths.side : widths.left;
  const { min, max } = PANEL_LIMITS[panel];
  return { min, max: Math.max(min, Math.min(max, panelRoom(room) - other)) };
}

/** The widths kept in `storage`, each within its limits; the defaults for what is missing or unreadable. */
export function readPanelWidths(storage: Pick<Storage, 'getItem'> | undefined): PanelWidths {
  let stored: unknown;
  try {
    stored = JSON.parse(storage?.getItem(PANEL_WIDTHS_KEY) ?? 'null');
  } catch {
    stored = null;
  }
  const record = typeof stored === 'object' && stored !== null ? (stored as Record<string, unknown>) : {};
  const read = (panel: PanelName) => {
    const value = record[panel];
    const { min, max } = PANEL_LIMITS[panel];
    return typeof value === 'number' && Number.isFinite(value) ? clamp(value, min, max) : DEFAULT_PANEL_WIDTHS[panel];
  };
  return { left: read('left'), side: read('side') };
}

/** Keeps the widths in `storage`; a storage that refuses (full, or off in a private window) only loses them. */
export function writePanelWidths(storage: Pick<Storage, 'setItem'> | undefined, widths: PanelWidths): void {
  try {
    storage?.setItem(PANEL_WIDTHS_KEY, JSON.stringify(widths));
  } catch {
    // The layout still works; it is only not remembered.
  }
}
