import type { Engine } from '@spillway/core';
import { SpillwayError, toMicros } from '@spillway/core';
import type { ServerConfig } from './config.ts';

export interface BootstrapResult {
  login: string;
  /** Set when the server generated credentials for a first start without configuration. */
  generated?: { password: string; key: string };
}

/** A unique-key conflict: another process bootstrapping the same database created the row meanwhile. */
const lostRace = (error: unknown): boolean => error instanceof SpillwayError && error.code === 'conflict';

function randomSecret(bytes: number): string {
  const buf = new Uint8Array(bytes);
  crypto.getRandomValues(buf);
  return Buffer.from(buf).toString('base64url');
}

/**
 * Ensures the bootstrap account at every start (idempotent): the login and password, the API
 * key, the approved alpha-names, and the balance topped up to at least the configured amount.
 * Without configuration, a first start on an empty database creates a `demo` account with
 * generated credentials, logged once, so that the server can be tried at once.
 */
export async function bootstrap(
  engine: Engine,
  config: ServerConfig,
  options: { demo: boolean } = { demo: true },
): Promise<BootstrapResult | null> {
  let login = config.SPILLWAY_BOOTSTRAP_LOGIN;
  let password = config.SPILLWAY_BOOTSTRAP_PASSWORD;
  let key = config.SPILLWAY_BOOTSTRAP_API_KEY;
  let generated: BootstrapResult['generated'];
  if (!login) {
    if (!options.demo) return null;
    if (await engine.accounts.getByLogin('demo')) return null;
    if ((await engine.storage.getAccount(1)) !== null) return null;
    login = 'demo';
    password = randomSecret(12);
    key = `sk_${randomSecret(24)}`;
    generated = { password, key };
  }
  if (!password) throw new Error('SPILLWAY_BOOTSTRAP_PASSWORD is required with SPILLWAY_BOOTSTRAP_LOGIN');
  // Processes started together on one database (an API process and its workers) bootstrap it at
  // once. `ensure` answers each the one account. The demo account is created, not ensured: the
  // process that loses the race to create it has credentials that were never set, and logs none.
  const credentials = { login, password };
  const account = generated
    ? await engine.accounts.create(credentials).catch((error: unknown) => {
        if (!lostRace(error)) throw error;
        return null;
      })
    : await engine.accounts.ensure(credentials);
  // Another process created the demo account: its credentials are the ones logged.
  if (!account) return null;
  if (key) {
    const apiKey = key;
    await engine.accounts.ensureKey(account.id, apiKey).catch((error: unknown) => {
      if (!lostRace(error)) throw error;
      return engine.accounts.ensureKey(account.id, apiKey);
    });
  }
  const names = (config.SPILLWAY_BOOTSTRAP_ALPHA_NAMES ?? (generated ? 'Spillway' : ''))
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  for (const name of names) await engine.accounts.approveAlphaName(account.id, name);
  const target = config.SPILLWAY_BOOTSTRAP_BALANCE ?? (generated ? 100 : undefined);
  if (target !== undefined) {
    // The balance is read and topped up in one step under the database's lock: processes that
    // bootstrap one database at once credit what is missing once, not once each.
    await engine.storage.topUpTo(
      { accountId: account.id, kind: 'topup', messageId: null, description: 'bootstrap balance' },
      toMicros(target),
      engine.clock.now(),
    );
  }
  return { login, ...(generated ? { generated } : {}) };
}
