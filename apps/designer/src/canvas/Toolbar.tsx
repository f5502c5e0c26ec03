import { CHANNELS } from '@spillway/core';
import type { ChannelId } from '@spillway/core';
import { useReactFlow } from '@xyflow/react';
import { CHANNEL_NAMES } from '../panels/channel-names.ts';

export interface ToolbarProps {
  readOnly: boolean;
  canUndo: boolean;
  canRedo: boolean;
  onAdd(channel: ChannelId): void;
  onUndo(): void;
  onRedo(): void;
  onLayout(): void;
}

/** Adds steps, undoes and redoes, lays out and fits the canvas. */
export function Toolbar({ readOnly, canUndo, canRedo, onAdd, onUndo, onRedo, onLayout }: ToolbarProps) {
  const { fitView } = useReactFlow();
  return (
    <div className="toolbar" role="toolbar">
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
      <button type="button" onClick={onUndo} disabled={!canUndo} title="Undo (Ctrl+Z)">
        Undo
      </button>
      <button type="button" onClick={onRedo} disabled={!canRedo} title="Redo (Ctrl+Shift+Z)">
        Redo
      </button>
      <button type="button" onClick={onLayout} disabled={readOnly}>
        Auto-layout
      </button>
      <button type="button" onClick={() => void fitView({ padding: 0.2, duration: 200 })}>
        Zoom to fit
      </button>
    </div>
  );
}
