import type { RouteView } from '../api/api-client.ts';

/** A save refused for a stale revision: take theirs, or store ours over it. */
export function ConflictDialog({
  theirs,
  onReload,
  onOverwrite,
  onCancel,
}: {
  theirs: RouteView;
  onReload(): void;
  onOverwrite(): void;
  onCancel(): void;
}) {
  return (
    <div className="modal-backdrop">
      <div className="modal" role="alertdialog" aria-labelledby="conflict-title">
        <h2 id="conflict-title">This route was changed elsewhere</h2>
        <p>
          Revision {theirs.revision} (&ldquo;{theirs.name}&rdquo;, {theirs.steps.length} steps) was saved
          {theirs.updatedAt ? ` at ${new Date(theirs.updatedAt).toLocaleTimeString()}` : ''} after you opened it.
        </p>
        <div className="row">
          <button type="button" onClick={onReload}>
            Reload theirs
          </button>
          <button type="button" className="danger" onClick={onOverwrite}>
            Overwrite with mine
          </button>
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </div>
    </div>
  );
}
