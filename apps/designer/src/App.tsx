import { useEffect, useMemo, useState } from 'react';
import { accountLabel, createApiClient } from './api/api-client.ts';
import type { AccountView, Credentials } from './api/api-client.ts';
import { describeError } from './api/describe-error.ts';
import { SignIn } from './panels/SignIn.tsx';
import { Workspace } from './Workspace.tsx';

const KEY = 'spillway.designer.credentials';

function stored(): Credentials | null {
  try {
    const raw = sessionStorage.getItem(KEY);
    return raw ? (JSON.parse(raw) as Credentials) : null;
  } catch {
    return null;
  }
}

/** Sign-in, then the workspace. Credentials live in this tab's session storage only. */
export function App() {
  const [credentials, setCredentials] = useState<Credentials | null>(stored);
  const [account, setAccount] = useState<AccountView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const api = useMemo(() => (credentials ? createApiClient({ credentials }) : null), [credentials]);

  // Credentials kept from earlier in this tab: the account is asked for again.
  useEffect(() => {
    if (!api || account) return;
    let current = true;
    api
      .account()
      .then((a) => current && setAccount(a))
      .catch(() => {
        // The workspace's own calls say what is wrong; the header falls back to what the credentials tell.
      });
    return () => {
      current = false;
    };
  }, [api, account]);

  const signIn = (next: Credentials) => {
    setError(null);
    // One call checks the credentials (a wrong key is told here, not later) and names the account.
    createApiClient({ credentials: next })
      .account()
      .then((a) => {
        sessionStorage.setItem(KEY, JSON.stringify(next));
        setAccount(a);
        setCredentials(next);
      })
      .catch((e: unknown) => setError(describeError(e)));
  };
  const signOut = () => {
    sessionStorage.removeItem(KEY);
    setAccount(null);
    setCredentials(null);
  };

  if (!api || !credentials) return <SignIn onSignIn={signIn} error={error} />;
  const label = account ? accountLabel(account) : 'login' in credentials ? credentials.login : '';
  return <Workspace api={api} account={label} onSignOut={signOut} />;
}
