import type { ReactNode } from 'react';
import { PanelSeparator } from './PanelSeparator.tsx';

/** The id of the side panel, which its separator controls. */
export const SIDE_PANEL_ID = 'side-panel';

/**
 * A mode's panel on the right, after the separator that resizes it. Each mode draws its own (the
 * panel's content is the mode's), so a mode without one (nothing open yet, a failed mode) has no
 * separator either, and the canvas takes its place (`styles.css`).
 */
export function SidePanel({ children }: { children: ReactNode }) {
  return (
    <>
      <PanelSeparator panel="side" controls={SIDE_PANEL_ID} label="Resize the side panel" />
      <aside className="side" id={SIDE_PANEL_ID}>
        {children}
      </aside>
    </>
  );
}
