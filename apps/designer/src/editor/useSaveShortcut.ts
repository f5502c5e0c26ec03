import { useEffect } from 'react';
import type { ActorRefFrom } from 'xstate';
import { canSave } from './editor-machine.ts';
import type { editorMachine } from './editor-machine.ts';

/**
 * Ctrl+S (⌘S) saves the open route from every mode (Edit, Simulate, Watch, Traffic), a field
 * included, and never opens the browser's "Save page as". In Edit the machine decides whether
 * there is anything to save and tells a refusal in the side panel; the other modes have nowhere
 * to tell it, so there only a route that can be saved is sent to be saved.
 */
export function useSaveShortcut(editor: ActorRefFrom<typeof editorMachine>, editing: boolean): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey || e.key.toLowerCase() !== 's') return;
      e.preventDefault();
      if (editing || canSave(editor.getSnapshot().context)) editor.send({ type: 'SAVE' });
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [editor, editing]);
}
