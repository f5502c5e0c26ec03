import type { DeliveryStatus, ErrorDetail, Route, RouteStats } from '@spillway/core';

/** A route as `/api/routes` shows it. */
export interface RouteView extends Route {
  id: string;
  revision: number;
  builtin: boolean;
  createdAt: string | null;
  updatedAt: string | null;
}

/** Where a route applies: an alpha-name, or (null) the account default. */
export interface RouteBinding {
  alphaName: string | null;
  routeId: string;
}

/** The cascade status record of `status_guid` / `status_id`. */
export interface CascadeStatus {
  messageId: string;
  trackinId: string;
  status: DeliveryStatus;
  channel: string | null;
  route: string | null;
  toPhone: string;
  fromName: string;
  createdAt: string;
  cost: number;
  currency: string;
  steps: { step: number; id: string; channel: string; status: string | null; dt: string | null; error: string | null; cost: number }[];
  history: { step: number; channel: string; status: string; dt: string; error: string | null }[];
}

/** Traffic of a route revision over a window (`GET /api/routes/{id}/stats`). */
/** What `GET /api/routes/{id}/stats` answers: core's own aggregate. */
export type RouteStatsView = RouteStats;

/** Credentials of the account: its API key, or its login and password. */
export type Credentials = { apiKey: string } | { login: string; password: string };

/** The account credentials sign in to (`GET /api/account`). */
export interface AccountView {
  clientId: number;
  login: string;
  name: string;
  currency: string;
}

/** How the header names the signed-in account: its login, and its name before it when that says more. */
export const accountLabel = (account: AccountView): string =>
  account.name && account.name !== account.login ? `${account.name} (${account.login})` : account.login;

/** A JSON error of the API, with its status, code and details. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface ApiClientOptions {
  /** Origin of the server; '' for the page's own origin. @default '' */
  baseUrl?: string;
  credentials: Credentials;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
}

function base64(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The header that authorizes a request with these credentials (interface 5). */
export function authHeader(credentials: Credentials): Record<string, string> {
  return 'apiKey' in credentials
    ? { 'X-Authorization-Key': credentials.apiKey }
    : { Authorization: `Basic ${base64(`${credentials.login}:${credentials.password}`)}` };
}

/**
 * The designer's client of the reference server: routes, bindings, cascade sends and statuses.
 * Every non-2xx answer is thrown as an {@link ApiError}.
 */
export function createApiClient(options: ApiClientOptions) {
  const baseUrl = options.baseUrl ?? '';
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  // X-Requested-With: a wrong key is a plain 401, not a challenge that opens the browser's own prompt.
  const headers = { ...authHeader(options.credentials), 'X-Requested-With': 'XMLHttpRequest' };

  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await doFetch(`${baseUrl}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    let json: unknown = undefined;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON: reported below with the status.
    }
    if (!response.ok) {
      const error = (json ?? {}) as { error?: string; message?: string; details?: ErrorDetail[] };
      throw new ApiError(response.status, error.error ?? 'http_error', error.message ?? `HTTP ${response.status}`, error.details ?? []);
    }
    return json as T;
  }

  const body = (route: Route) => {
    const { id: _id, ...rest } = route as Route & { builtin?: unknown; createdAt?: unknown; updatedAt?: unknown };
    const { builtin: _b, createdAt: _c, updatedAt: _u, ...definition } = rest;
    return definition;
  };

  return {
    /** The account of the credentials: checks them and names it. */
    account: () => call<AccountView>('GET', '/api/account'),
    /** The names the account may send from: its approved alpha-names (`GET /api/clientsenders`), in the server's order. */
    approvedAlphaNames: async () => {
      const senders = await call<{ alphaNames: { name: string; status: string }[] }>('GET', '/api/clientsenders');
      return senders.alphaNames.filter((a) => a.status === 'approved').map((a) => a.name);
    },
    listRoutes: () => call<RouteView[]>('GET', '/api/routes'),
    /** The latest revision of a route, or the given one (the revision a message ran on). */
    getRoute: (id: string, revision?: number) =>
      call<RouteView>('GET', `/api/routes/${encodeURIComponent(id)}${revision === undefined ? '' : `?revision=${revision}`}`),
    /** Stores a new route (revision 1); the server picks its id. */
    createRoute: (route: Route) => {
      const { revision: _r, ...definition } = body(route);
      return call<RouteView>('POST', '/api/routes', definition);
    },
    /** Stores the next revision; `revision` is the one being replaced (409 when stale). */
    updateRoute: (id: string, route: Route, revision: number) =>
      call<RouteView>('PUT', `/api/routes/${encodeURIComponent(id)}`, { ...body(route), revision }),
    deleteRoute: (id: string) => call<void>('DELETE', `/api/routes/${encodeURIComponent(id)}`),
    listBindings: () => call<RouteBinding[]>('GET', '/api/routes/bindings'),
    /** Binds the route to an alpha-name, or (null) makes it the account default. */
    bindRoute: (id: string, alphaName: string | null) =>
      call<RouteBinding>('PUT', `/api/routes/${encodeURIComponent(id)}/binding`, { alphaName }),
    /** Counts per step and edge of a route revision over a window (default: the latest revision, the last 24 hours). */
    routeStats: (id: string, window: { since?: string; until?: string; revision?: number } = {}) => {
      const query = new URLSearchParams(Object.entries(window).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]])));
      return call<RouteStatsView>('GET', `/api/routes/${encodeURIComponent(id)}/stats${query.size ? `?${query}` : ''}`);
    },
    /**
     * Sends one cascade message; answers its GUID and trackinId. `route` (`id` or `id@revision`)
     * runs it on that route instead of the one bound to the alpha-name.
     */
    sendCascade: (message: { toPhone: string; fromName: string; text: string; id?: string; ttl?: number; route?: string }) =>
      call<{ messageId: string; trackinId: string }[]>('POST', '/api/CascadeMessage/send_message/async', [message]),
    /** Status of a cascade by its GUID, or else by its trackinId. */
    cascadeStatus: (idOrGuid: string) =>
      call<CascadeStatus>(
        'GET',
        UUID.test(idOrGuid)
          ? `/api/CascadeMessage/status_guid/${idOrGuid}`
          : `/api/CascadeMessage/status_id/${encodeURIComponent(idOrGuid)}`,
      ),
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type ApiClient = ReturnType<typeof createApiClient>;
