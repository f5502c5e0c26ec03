import { useRef } from 'react';
import type { KeyboardEvent, PointerEvent } from 'react';
import { usePanelResize } from './PanelLayout.tsx';
import type { PanelName } from './panel-widths.ts';

export interface PanelSeparatorProps {
  panel: PanelName;
  /** The id of the panel it resizes (`aria-controls`). */
  controls: string;
  /** What a screen reader calls it: "Resize the route list". */
  label: string;
}

/** Pixels an arrow key moves the separator; with Shift, `BIG_STEP`. */
const STEP = 10;
const BIG_STEP = 50;

/**
 * The line between a panel and the canvas, resizing the panel: drag it, or focus it and use the
 * arrow keys (Shift for bigger steps, Home and End for the limits); a double-click restores the
 * default width. A WAI-ARIA window splitter: its value is the panel's width in pixels.
 */
export function PanelSeparator({ panel, controls, label }: PanelSeparatorProps) {
  const { width, min, max, dragging, resize, reset } = usePanelResize(panel);
  // Moving right widens the route list, on the separator's left, and narrows the side panel, on its right.
  const grow = panel === 'left' ? 1 : -1;
  const drag = useRef<{ x: number; width: number; last: number } | null>(null);

  const onPointerDown = (e: PointerEvent<HTMLDivElement>) => {
    if (e.button !== 0) return;
    // No text selection while dragging; the separator takes the focus, so the keys go on from there.
    e.preventDefault();
    e.currentTarget.focus();
    e.currentTarget.setPointerCapture(e.pointerId);
    drag.current = { x: e.clientX, width, last: width };
  };
  const onPointerMove = (e: PointerEvent<HTMLDivElement>) => {
    const d = drag.current;
    if (!d) return;
    d.last = d.width + grow * (e.clientX - d.x);
    resize(d.last, false);
  };
  const end = () => {
    const d = drag.current;
    if (!d) return;
    drag.current = null;
    resize(d.last, true);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const step = e.shiftKey ? BIG_STEP : STEP;
    let to: number;
    switch (e.key) {
      case 'ArrowLeft':
        to = width - grow * step;
        break;
      case 'ArrowRight':
        to = width + grow * step;
        break;
      case 'Home':
        to = min;
        break;
      case 'End':
        to = max;
        break;
      default:
        return;
    }
    e.preventDefault();
    resize(to, true);
  };

  return (
    <div
      role="separator"
      tabIndex={0}
      aria-orientation="vertical"
      aria-label={label}
      aria-controls={controls}
      aria-valuenow={width}
      aria-valuemin={min}
      aria-valuemax={max}
      aria-valuetext={`${width} pixels`}
      title="Drag to resize; double-click for the default width"
      className={`panel-separator separator-${panel}`}
      data-dragging={dragging || undefined}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={end}
      onPointerCancel={end}
      onLostPointerCapture={end}
      onKeyDown={onKeyDown}
      onDoubleClick={reset}
    />
  );
}
