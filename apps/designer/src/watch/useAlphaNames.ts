import { useEffect, useState } from 'react';
import type { ApiClient } from '../api/api-client.ts';
import { describeError } from '../api/describe-error.ts';

/**
 * The account's approved alpha-names (`GET /api/clientsenders`), offered as the From of a test
 * cascade; `note` says why none is offered (none approved, or the listing failed).
 */
export function useAlphaNames(api: ApiClient): { names: string[]; note: string | null } {
  const [state, setState] = useState<{ names: string[]; note: string | null }>({ names: [], note: null });
  useEffect(() => {
    let stale = false;
    api
      .approvedAlphaNames()
      .then((names) => {
        if (stale) return;
        const note = names.length === 0 ? 'The account has no approved alpha-name yet: a test cascade needs one.' : null;
        setState({ names, note });
      })
      .catch((e: unknown) => !stale && setState({ names: [], note: `The alpha-names cannot be listed: ${describeError(e)}` }));
    return () => {
      stale = true;
    };
  }, [api]);
  return state;
}
