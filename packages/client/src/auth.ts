/**
 * How the client authenticates (interface 5.1): an API key (`X-Authorization-Key`), a login and
 * password (HTTP Basic), or a client token from `POST /api/auth` (`Authorization: Bearer`).
 * Chat hub routes take their company or operator token the same way as `{ token }`.
 */
export type SpillwayAuth = { apiKey: string } | { login: string; password: string } | { token: string };

/** The headers that carry `auth`. */
export function authHeaders(auth: SpillwayAuth): Record<string, string> {
  if ('apiKey' in auth) return { 'X-Authorization-Key': auth.apiKey };
  if ('token' in auth) return { Authorization: `Bearer ${auth.token}` };
  const bytes = new TextEncoder().encode(`${auth.login}:${auth.password}`);
  return { Authorization: `Basic ${btoa(String.fromCharCode(...bytes))}` };
}
