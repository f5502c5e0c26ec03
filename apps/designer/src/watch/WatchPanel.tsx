import { useState } from 'react';
import type { FormEvent } from 'react';
import type { ApiClient, CascadeStatus } from '../api/api-client.ts';
import { describeError } from '../api/describe-error.ts';
import { StatusRecord } from '../simulation/StatusRecord.tsx';
import type { TestTarget } from './test-target.ts';
import { useAlphaNames } from './useAlphaNames.ts';

export interface WatchPanelProps {
  api: ApiClient;
  watching: string | null;
  status: CascadeStatus | null;
  /** The step ids of the cascade's route in the route's order (its steps table follows it), once the route is read. */
  order?: readonly string[] | undefined;
  error: string | null;
  /** The route a test cascade runs: the one open in the editor (see `testTarget`). */
  target: TestTarget;
  onWatch(id: string | null): void;
}

/** What the test form says of the route it runs. */
function targetNote(target: TestTarget): string {
  switch (target.kind) {
    case 'route':
      return `Runs the route open in the editor, “${target.name}”, at its saved revision (${target.ref}), whatever route the alpha-name is bound to.`;
    case 'binding':
      return 'No route is open: the cascade runs the route bound to the alpha-name (or the account default). Open a route to test it.';
    case 'unsaved':
      return target.why;
  }
}

/** Watch a real cascade by trackinId or GUID, or send one to a simulator test number and watch it. */
export function WatchPanel({ api, watching, status, order, error, target, onWatch }: WatchPanelProps) {
  const [sendError, setSendError] = useState<string | null>(null);
  const alphaNames = useAlphaNames(api);
  const watch = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const id = String(new FormData(e.currentTarget).get('watch-id') ?? '').trim();
    onWatch(id || null);
  };
  const send = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const value = (n: string) => String(form.get(n) ?? '').trim();
    // The form cannot be sent then; a submit by other means is refused here too.
    if (target.kind === 'unsaved') return;
    setSendError(null);
    api
      .sendCascade({
        toPhone: value('to'),
        fromName: value('from'),
        text: value('text') || 'Hello from the designer',
        ...(target.kind === 'route' ? { route: target.ref } : {}),
      })
      .then(([accepted]) => onWatch(accepted?.messageId ?? null))
      .catch((err: unknown) => setSendError(describeError(err)));
  };
  return (
    <section className="panel-section watch" aria-label="Watch">
      <h3>Watch a cascade</h3>
      <form onSubmit={watch} className="row" key={watching ?? ''}>
        <input name="watch-id" placeholder="trackinId or message GUID" defaultValue={watching ?? ''} />
        <button type="submit">Watch</button>
      </form>
      <details>
        <summary>Send a test cascade</summary>
        <form onSubmit={send}>
          <p className={target.kind === 'unsaved' ? 'error' : 'muted'} data-testid="test-route">
            {targetNote(target)}
          </p>
          <label>
            To (999… test numbers choose the outcome)
            <input name="to" defaultValue="99900000001" required />
          </label>
          <label>
            From (an approved alpha-name of the account)
            {/* Keyed by the names: the first approved one fills the field once they are read. */}
            <input
              name="from"
              list="approved-alpha-names"
              required
              key={alphaNames.names[0] ?? ''}
              defaultValue={alphaNames.names[0] ?? ''}
            />
          </label>
          <datalist id="approved-alpha-names" data-testid="approved-alpha-names">
            {alphaNames.names.map((n) => (
              <option key={n} value={n} />
            ))}
          </datalist>
          {alphaNames.note && <p className="muted">{alphaNames.note}</p>}
          <label>
            Text
            <input name="text" defaultValue="Hello from the designer" />
          </label>
          <button type="submit" className="primary" disabled={target.kind === 'unsaved'}>
            Send and watch
          </button>
          {sendError && <p className="error">{sendError}</p>}
        </form>
      </details>
      {error && <p className="error">{error}</p>}
      {status && (
        <>
          <p className="muted" data-testid="watch-route">
            {status.messageId} · trackinId {status.trackinId || '—'} · route {status.route ?? '—'}
          </p>
          <StatusRecord record={status} {...(order ? { order } : {})} />
        </>
      )}
    </section>
  );
}
