import { CHANNELS } from '@spillway/core';
import type { ChannelId } from '@spillway/core';
import { useReactFlow } from '@xyflow/react';
import type { ReactNode } from 'react';
import { CHANNEL_NAMES } from '../panels/channel-names.ts';
import { FIT_VIEW_OPTIONS } from './fit-view.ts';

export interface ToolbarProps {
  readOnly: boolean;
  canUndo: boolean;
  canRedo: boolean;
  onAdd(channel: ChannelId): void;
  onUndo(): void;
  onRedo(): void;
  onLayout(): void;
}

/** A 16 px line icon of the toolbar, drawn in the button's colour. */
function Icon({ children }: { children: ReactNode }) {
  return (
    <svg
      viewBox="0 0 16 16"
      width="16"
      height="16"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.5"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      {children}
    </svg>
  );
}

/** A tool shown as its icon: named by `label` (what a screen reader says), told by `title` (the tooltip). */
function IconButton(props: { label: string; title: string; disabled?: boolean; onClick(): void; children: ReactNode }) {
  return (
    <button type="button" className="icon" aria-label={props.label} title={props.title} disabled={props.disabled} onClick={props.onClick}>
      {props.children}
    </button>
  );
}

/**
 * Adds steps, undoes and redoes, lays out and fits the canvas. The steps' buttons keep their words;
 * the view's tools are icons (named, with tooltips), so the toolbar keeps to one line beside the
 * panels at their first widths in a 1440 px window.
 */
export function Toolbar({ readOnly, canUndo, canRedo, onAdd, onUndo, onRedo, onLayout }: ToolbarProps) {
  const { fitView } = useReactFlow();
  return (
    <div className="toolbar" role="toolbar" aria-label="Canvas">
      {!readOnly && (
        <span className="palette">
          {CHANNELS.map((c) => (
            <button key={c} type="button" onClick={() => onAdd(c)} title={`Add a ${CHANNEL_NAMES[c]} step`}>
              + {CHANNEL_NAMES[c]}
            </button>
          ))}
        </span>
      )}
      <span className="spacer" />
      <IconButton label="Undo" title="Undo (Ctrl+Z)" disabled={!canUndo} onClick={onUndo}>
        <Icon>
          <path d="M6 3 2.5 6.5 6 10" />
          <path d="M2.5 6.5H10a3.5 3.5 0 0 1 0 7H7" />
        </Icon>
      </IconButton>
      <IconButton label="Redo" title="Redo (Ctrl+Shift+Z)" disabled={!canRedo} onClick={onRedo}>
        <Icon>
          <path d="M10 3l3.5 3.5L10 10" />
          <path d="M13.5 6.5H6a3.5 3.5 0 0 0 0 7h3" />
        </Icon>
      </IconButton>
      <IconButton label="Auto-layout" title="Auto-layout: place the steps top-down along the edges" disabled={readOnly} onClick={onLayout}>
        <Icon>
          <rect x="5.5" y="1.5" width="5" height="3.5" rx="1" />
          <rect x="1.5" y="11" width="5" height="3.5" rx="1" />
          <rect x="9.5" y="11" width="5" height="3.5" rx="1" />
          <path d="M8 5v3M4 11V8h8v3" />
        </Icon>
      </IconButton>
      <IconButton
        label="Zoom to fit"
        title="Zoom to fit the whole route"
        onClick={() => void fitView({ ...FIT_VIEW_OPTIONS, duration: 200 })}
      >
        <Icon>
          <path d="M1.5 5.5v-4h4M10.5 1.5h4v4M14.5 10.5v4h-4M5.5 14.5h-4v-4" />
        </Icon>
      </IconButton>
    </div>
  );
}
