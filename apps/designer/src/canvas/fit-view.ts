import type { FitViewOptions } from '@xyflow/react';

/** The minimap's size, px: small, in the canvas's bottom-right corner. */
export const MINIMAP_SIZE = { width: 160, height: 110 } as const;

/**
 * How the canvas fits a route (when opened, with "Zoom to fit", with the controls' fit button):
 * clear of the minimap and the zoom controls in the bottom corners (their height, their 15 px
 * margin and a gap), so that no step or handle is drawn under them; a tenth of the width either
 * side for the edge labels, which may reach beyond the steps (the outermost are drawn outwards).
 */
export const FIT_VIEW_OPTIONS = {
  padding: { top: '40px', left: '10%', right: '10%', bottom: `${MINIMAP_SIZE.height + 15 + 24}px` },
  maxZoom: 1.2,
} satisfies FitViewOptions;
