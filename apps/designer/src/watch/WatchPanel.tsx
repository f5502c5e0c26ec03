import { useState } from 'react';
import type { FormEvent } from 'react';
import type { ApiClient, CascadeStatus } from '../api/api-client.ts';
import { describeError } from '../api/describe-error.ts';
import { StatusRecord } from '../simulation/StatusRecord.tsx';

export interface WatchPanelProps {
  api: ApiClient;
  watching: string | null;
  status: CascadeStatus | null;
  error: string | null;
  onWatch(id: string | null): void;
}

/** Watch a real cascade by trackinId or GUID, or send one to a simulator test number and watch it. */
export function WatchPanel({ api, watching, status, error, onWatch }: WatchPanelProps) {
  const [sendError, setSendError] = useState<string | null>(null);
  const watch = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const id = String(new FormData(e.currentTarget).get('watch-id') ?? '').trim();
    onWatch(id || null);
  };
  const send = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const value = (n: string) => String(form.get(n) ?? '').trim();
    setSendError(null);
    api
      .sendCascade({ toPhone: value('to'), fromName: value('from'), text: value('text') || 'Hello from the designer' })
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
          <label>
            To (999… test numbers choose the outcome)
            <input name="to" defaultValue="99900000001" required />
          </label>
          <label>
            From (an alpha-name of the account)
            <input name="from" required />
          </label>
          <label>
            Text
            <input name="text" defaultValue="Hello from the designer" />
          </label>
          <button type="submit" className="primary">
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
          <StatusRecord record={status} />
        </>
      )}
    </section>
  );
}
