import { createServer, readConfig } from '@spillway/server';
import type { CreateServerOptions, SpillwayServer } from '@spillway/server';

export const LOGIN = 'acme';
export const PASSWORD = 'acme-password-1';
export const API_KEY = 'sk_test_acme_0123456789abcdef';

export interface RunningFixture {
  server: SpillwayServer;
  url: string;
  /** fetch against the server with the account's API key unless `headers` say otherwise. */
  call(path: string, init?: RequestInit & { json?: unknown; auth?: 'key' | 'basic' | 'none' }): Promise<Response>;
  close(): Promise<void>;
}

/**
 * The reference server as {@link startServer} makes it, not listening yet: an in-memory database,
 * simulator channels, and the bootstrap account `acme` (key API_KEY, alpha-names Acme and Promo).
 * `listen()` puts it on a free port of 127.0.0.1; `close()` it either way.
 */
export async function createTestServer(env: Record<string, string> = {}, options: CreateServerOptions = {}): Promise<SpillwayServer> {
  const config = readConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    SPILLWAY_DB: ':memory:',
    SPILLWAY_LOG_LEVEL: 'silent',
    SPILLWAY_SIMULATOR_LATENCY_MS: '20',
    SPILLWAY_BOOTSTRAP_LOGIN: LOGIN,
    SPILLWAY_BOOTSTRAP_PASSWORD: PASSWORD,
    SPILLWAY_BOOTSTRAP_API_KEY: API_KEY,
    SPILLWAY_BOOTSTRAP_ALPHA_NAMES: 'Acme,Promo',
    SPILLWAY_BOOTSTRAP_BALANCE: '1000',
    // Tests fire requests faster than the default limits allow; the limit tests set their own.
    SPILLWAY_RATE_MESSAGING: '1000/2000',
    SPILLWAY_RATE_DATA: '1000/2000',
    ...env,
  });
  return createServer(config, options);
}

/** The reference server of {@link createTestServer}, listening on a free port of 127.0.0.1. */
export async function startServer(env: Record<string, string> = {}, options: CreateServerOptions = {}): Promise<RunningFixture> {
  const server = await createTestServer(env, options);
  const { url } = await server.listen();
  return {
    server,
    url,
    call(path, init = {}) {
      const { json, auth = 'key', ...rest } = init;
      const headers = new Headers(rest.headers);
      if (auth === 'key' && !headers.has('x-authorization-key')) headers.set('x-authorization-key', API_KEY);
      if (auth === 'basic') headers.set('authorization', `Basic ${Buffer.from(`${LOGIN}:${PASSWORD}`).toString('base64')}`);
      if (json !== undefined) {
        if (!headers.has('content-type')) headers.set('content-type', 'application/json');
        rest.body = JSON.stringify(json);
        rest.method ??= 'POST';
      }
      return fetch(`${url}${path}`, { ...rest, headers });
    },
    close: () => server.close(),
  };
}

/** Polls `read` until `done` holds (bounded: the simulator answers within milliseconds). */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, attempts = 200): Promise<T> {
  let value = await read();
  for (let i = 0; i < attempts && !done(value); i++) {
    await new Promise((resolve) => setTimeout(resolve, 15));
    value = await read();
  }
  return value;
}
