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
 * Without configuration (and with `demo`), {@link createDemoAccount}.
 */
export async function bootstrap(
  engine: Engine,
  config: ServerConfig,
  options: { demo: boolean } = { demo: true },
): Promise<BootstrapResult | null> {
  const login = config.SPILLWAY_BOOTSTRAP_LOGIN;
  if (!login) return options.demo ? createDemoAccount(engine) : null;
  const password = config.SPILLWAY_BOOTSTRAP_PASSWORD;
  if (!password) throw new Error('SPILLWAY_BOOTSTRAP_PASSWORD is required with SPILLWAY_BOOTSTRAP_LOGIN');
  // Processes started together on one database (an API process and its workers) bootstrap it at
  // once. `ensure` answers each the one account.
  const account = await engine.accounts.ensure({ login, password });
  await provision(engine, account.id, {
    key: config.SPILLWAY_BOOTSTRAP_API_KEY,
    alphaNames: config.SPILLWAY_BOOTSTRAP_ALPHA_NAMES ?? '',
    balance: config.SPILLWAY_BOOTSTRAP_BALANCE,
  });
  return { login };
}

/**
 * On an empty database, creates a `demo` account with generated credentials (alpha-name
 * `Spillway`, balance 100) so that the server can be tried at once, and answers them: the only
 * time they can be shown. Null when the database has an account already.
 */
export async function createDemoAccount(engine: Engine): Promise<BootstrapResult | null> {
  if (await engine.accounts.getByLogin('demo')) return null;
  if ((await engine.storage.getAccount(1)) !== null) return null;
  const password = randomSecret(12);
  const key = `sk_${randomSecret(24)}`;
  // Created, not ensured: the process that loses the race to create it (processes started together
  // on one database) has credentials that were never set, and answers none.
  const account = await engine.accounts.create({ login: 'demo', password }).catch((error: unknown) => {
    if (!lostRace(error)) throw error;
    return null;
  });
  if (!account) return null;
  await provision(engine, account.id, { key, alphaNames: 'Spillway', balance: 100 });
  return { login: 'demo', generated: { password, key } };
}

/** Gives an account its API key, approved alpha-names (comma-separated) and at least `balance`. */
async function provision(
  engine: Engine,
  accountId: number,
  given: { key: string | undefined; alphaNames: string; balance: number | undefined },
): Promise<void> {
  if (given.key) {
    const apiKey = given.key;
    await engine.accounts.ensureKey(accountId, apiKey).catch((error: unknown) => {
      if (!lostRace(error)) throw error;
      return engine.accounts.ensureKey(accountId, apiKey);
    });
  }
  const names = given.alphaNames
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  for (const name of names) await engine.accounts.approveAlphaName(accountId, name);
  if (given.balance !== undefined) {
    // The balance is read and topped up in one step under the database's lock: processes that
    // bootstrap one database at once credit what is missing once, not once each.
    await engine.storage.topUpTo(
      { accountId, kind: 'topup', messageId: null, description: 'bootstrap balance' },
      toMicros(given.balance),
      engine.clock.now(),
    );
  }
}
