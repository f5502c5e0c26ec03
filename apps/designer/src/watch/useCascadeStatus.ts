import { useEffect, useState } from 'react';
import type { ApiClient, CascadeStatus } from '../api/api-client.ts';

/** Statuses after which nothing changes any more (a late delivery aside). */
const SETTLED = new Set(['delivered', 'cancelled', 'undeliverable', 'permanenterror']);

/**
 * Polls a cascade's status every `intervalMs` while it runs (and a few times after it settles,
 * for late reports).
 */
export function useCascadeStatus(api: ApiClient, id: string | null, intervalMs = 1000) {
  const [status, setStatus] = useState<CascadeStatus | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setStatus(null);
    setError(null);
    if (!id) return;
    let stopped = false;
    let settledPolls = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const next = await api.cascadeStatus(id);
        if (stopped) return;
        setStatus(next);
        setError(null);
        if (SETTLED.has(next.status)) settledPolls++;
      } catch (e) {
        if (!stopped) setError(e instanceof Error ? e.message : String(e));
      }
      if (!stopped && settledPolls < 3) timer = setTimeout(() => void poll(), intervalMs);
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [api, id, intervalMs]);
  return { status, error };
}
