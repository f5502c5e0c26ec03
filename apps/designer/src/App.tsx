import { useMemo, useState } from 'react';
import { createApiClient } from './api/api-client.ts';
import type { Credentials } from './api/api-client.ts';
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
  const [error, setError] = useState<string | null>(null);
  const api = useMemo(() => (credentials ? createApiClient({ credentials }) : null), [credentials]);

  const signIn = (next: Credentials) => {
    setError(null);
    // The route list needs the account: a wrong key is told here, not later.
    createApiClient({ credentials: next })
      .listRoutes()
      .then(() => {
        sessionStorage.setItem(KEY, JSON.stringify(next));
        setCredentials(next);
      })
      .catch((e: unknown) => setError(describeError(e)));
  };
  const signOut = () => {
    sessionStorage.removeItem(KEY);
    setCredentials(null);
  };

  if (!api || !credentials) return <SignIn onSignIn={signIn} error={error} />;
  return <Workspace api={api} account={'login' in credentials ? credentials.login : 'API key'} onSignOut={signOut} />;
}
