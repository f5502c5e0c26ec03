import { createContext, useContext, useState, useSyncExternalStore } from 'react';
import type { CSSProperties, ReactNode } from 'react';
import { DEFAULT_PANEL_WIDTHS, fitPanelWidths, panelRange, readPanelWidths, writePanelWidths } from './panel-widths.ts';
import type { PanelLimits, PanelName, PanelWidths } from './panel-widths.ts';

/** What a separator needs of its panel. */
export interface PanelResize extends PanelLimits {
  /** The width drawn now. */
  width: number;
  /** Whether this panel is being dragged. */
  dragging: boolean;
  /** Sets the width (within the limits); `done` ends a drag and keeps the width for the next visit. */
  resize(width: number, done: boolean): void;
  /** Back to the default width, kept. */
  reset(): void;
}

const PanelLayoutContext = createContext<Record<PanelName, PanelResize> | null>(null);

/** The page's local storage, or none where the browser refuses it (storage blocked for the site). */
function browserStorage(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

function subscribeToResize(onChange: () => void) {
  window.addEventListener('resize', onChange);
  return () => window.removeEventListener('resize', onChange);
}
const viewportWidth = () => document.documentElement.clientWidth;

/**
 * The workspace's grid: the route list, the canvas and the side panel, the panels as wide as the
 * user dragged them (kept in local storage), the canvas taking the rest. The widths are CSS
 * variables on the grid, so a drag renders this component and the separators only: `children`
 * come from the workspace unchanged, and React skips them.
 */
export function PanelLayout({ children }: { children: ReactNode }) {
  const [wanted, setWanted] = useState<PanelWidths>(() => readPanelWidths(browserStorage()));
  const [dragging, setDragging] = useState<PanelName | null>(null);
  const room = useSyncExternalStore(subscribeToResize, viewportWidth);
  const widths = fitPanelWidths(wanted, room);

  const panel = (name: PanelName): PanelResize => {
    const range = panelRange(name, widths, room);
    const keep = (next: PanelWidths) => {
      setWanted(next);
      writePanelWidths(browserStorage(), next);
    };
    return {
      ...range,
      width: widths[name],
      dragging: dragging === name,
      resize(width, done) {
        const next = { ...wanted, [name]: Math.round(Math.min(Math.max(width, range.min), range.max)) };
        setDragging(done ? null : name);
        if (done) keep(next);
        else setWanted(next);
      },
      reset: () => keep({ ...wanted, [name]: DEFAULT_PANEL_WIDTHS[name] }),
    };
  };
  const style = { '--left-width': `${widths.left}px`, '--side-width': `${widths.side}px` } as CSSProperties;

  return (
    <PanelLayoutContext.Provider value={{ left: panel('left'), side: panel('side') }}>
      <div className="app" style={style} data-resizing={dragging ?? undefined}>
        {children}
      </div>
    </PanelLayoutContext.Provider>
  );
}

/** The width, limits and resizing of a panel of the enclosing `PanelLayout`. */
export function usePanelResize(name: PanelName): PanelResize {
  const panels = useContext(PanelLayoutContext);
  if (!panels) throw new Error('usePanelResize needs a PanelLayout around it');
  return panels[name];
}
