import { useEffect, useState } from 'react';
import type { ApiClient, CascadeStatus } from '../api/api-client.ts';
import { pollCascadeStatus } from './poll-cascade-status.ts';

/**
 * Polls a cascade's status every `intervalMs` while it runs (and a few times after it settles,
 * for late reports); an unknown cascade stops the polling with its error.
 */
export function useCascadeStatus(api: ApiClient, id: string | null, intervalMs = 1000) {
  const [status, setStatus] = useState<CascadeStatus | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setStatus(null);
    setError(null);
    if (!id) return;
    return pollCascadeStatus(api, id, intervalMs, {
      onStatus: (next) => {
        setStatus(next);
        setError(null);
      },
      onError: (message, final) => {
        setError(message);
        if (final) setStatus(null);
      },
    });
  }, [api, id, intervalMs]);
  return { status, error };
}
