import { useState } from 'react';
import type { FormEvent } from 'react';
import type { Credentials } from '../api/api-client.ts';

/** Sign-in with the account's API key, or its login and password. */
export function SignIn({ onSignIn, error }: { onSignIn(credentials: Credentials): void; error: string | null }) {
  const [useKey, setUseKey] = useState(true);
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const value = (name: string) => String(form.get(name) ?? '').trim();
    onSignIn(useKey ? { apiKey: value('apiKey') } : { login: value('login'), password: String(form.get('password') ?? '') });
  };
  return (
    <main className="sign-in">
      <form onSubmit={submit}>
        <h1>Spillway designer</h1>
        <p>Draw, check, simulate and watch the cascade routes of your account.</p>
        <div className="tabs">
          <button type="button" className={useKey ? 'on' : ''} onClick={() => setUseKey(true)}>
            API key
          </button>
          <button type="button" className={useKey ? '' : 'on'} onClick={() => setUseKey(false)}>
            Login and password
          </button>
        </div>
        {useKey ? (
          <label>
            API key
            <input name="apiKey" type="password" autoComplete="off" required autoFocus />
          </label>
        ) : (
          <>
            <label>
              Login
              <input name="login" autoComplete="username" required autoFocus />
            </label>
            <label>
              Password
              <input name="password" type="password" autoComplete="current-password" required />
            </label>
          </>
        )}
        {error && <p className="error">{error}</p>}
        <button type="submit" className="primary">
          Sign in
        </button>
      </form>
    </main>
  );
}
