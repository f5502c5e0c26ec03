import type { Engine } from '@spillway/core';
import { fromMicros, SpillwayError, toMicros } from '@spillway/core';
import type { Logger } from 'pino';
import type { ServerConfig } from './config.ts';

export interface BootstrapResult {
  login: string;
  /** Set when the server generated credentials for a first start without configuration. */
  generated?: { password: string; key: string };
  /** What the balance top-up did, when a balance is configured. */
  topUp?: TopUp;
  /** SPILLWAY_BOOTSTRAP_API_KEY names a key that was revoked: it stays revoked. */
  keyRevoked?: boolean;
}

/** What a start's top-up of the bootstrap balance did, in units of the account's currency. */
export interface TopUp {
  /** No account had the login when this start looked: the credit is the opening balance. */
  created: boolean;
  /** The configured balance (SPILLWAY_BOOTSTRAP_BALANCE). */
  target: number;
  /** The balance this start found. */
  before: number;
  /** What this start credited: 0 when the balance already reached the target. */
  credited: number;
  /** The balance after this start. */
  balance: number;
  currency: string;
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
  const created = (await engine.accounts.getByLogin(login)) === null;
  const account = await engine.accounts.ensure({ login, password });
  const { topUp, keyRevoked } = await provision(engine, account.id, {
    key: config.SPILLWAY_BOOTSTRAP_API_KEY,
    alphaNames: config.SPILLWAY_BOOTSTRAP_ALPHA_NAMES ?? '',
    balance: config.SPILLWAY_BOOTSTRAP_BALANCE,
  });
  return {
    login,
    ...(topUp ? { topUp: { created, currency: account.currency, ...topUp } } : {}),
    ...(keyRevoked ? { keyRevoked } : {}),
  };
}

/**
 * Logs what a start's bootstrap did to the balance, one line a start: the opening balance of a
 * new account, a top-up of an existing one (a warning: money that appears on a restart should be
 * seen), or that the balance already reached the configured amount. The top-up had no line, so a
 * restart refilled an account that had spent its money without a word.
 */
export function logBootstrap(logger: Logger, result: BootstrapResult | null): void {
  if (result?.keyRevoked) {
    logger.warn(
      { login: result.login },
      `bootstrap account ${result.login}: SPILLWAY_BOOTSTRAP_API_KEY names a key that was revoked; it stays revoked ` +
        '(a revoked key may have leaked): set a new key there, or unset it and use spillway keys create',
    );
  }
  const topUp = result?.topUp;
  if (!result || !topUp) return;
  const { created, target, before, credited, balance, currency } = topUp;
  const fields = { login: result.login, created, target, before, credited, balance, currency };
  if (credited === 0) {
    logger.info(
      fields,
      `bootstrap account ${result.login}: its balance ${balance} reaches SPILLWAY_BOOTSTRAP_BALANCE ${target}, nothing credited`,
    );
  } else if (created) {
    logger.info(fields, `bootstrap account ${result.login} created with SPILLWAY_BOOTSTRAP_BALANCE ${target} as its opening balance`);
  } else {
    logger.warn(
      fields,
      `bootstrap account ${result.login}: its balance ${before} was topped up to SPILLWAY_BOOTSTRAP_BALANCE ${target} (${credited} credited); ` +
        'every start tops it up to that amount: unset SPILLWAY_BOOTSTRAP_BALANCE to leave the balance to the wallet (spillway accounts topup)',
    );
  }
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

/**
 * Gives an account its API key, approved alpha-names (comma-separated) and at least `balance`;
 * answers what the top-up credited and the balance after it (null without a balance).
 */
async function provision(
  engine: Engine,
  accountId: number,
  given: { key: string | undefined; alphaNames: string; balance: number | undefined },
): Promise<{ topUp: Omit<TopUp, 'created' | 'currency'> | null; keyRevoked: boolean }> {
  // A key another process registered meanwhile is answered by ensureKey; a revoked one stays so.
  const keyRevoked = given.key
    ? await engine.accounts.ensureKey(accountId, given.key).then(
        () => false,
        (error: unknown) => {
          if (error instanceof SpillwayError && error.details?.[0]?.message === 'revoked') return true;
          throw error;
        },
      )
    : false;
  const names = given.alphaNames
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  for (const name of names) await engine.accounts.approveAlphaName(accountId, name);
  if (given.balance === undefined) return { topUp: null, keyRevoked };
  // The balance is read and topped up in one step under the database's lock: processes that
  // bootstrap one database at once credit what is missing once, not once each.
  const credit = await engine.storage.topUpTo(
    { accountId, kind: 'topup', messageId: null, description: 'bootstrap balance' },
    toMicros(given.balance),
    engine.clock.now(),
  );
  const balance = credit ? credit.balanceAfter : await engine.storage.getBalance(accountId);
  const credited = credit?.amount ?? 0;
  return {
    topUp: { target: given.balance, before: fromMicros(balance - credited), credited: fromMicros(credited), balance: fromMicros(balance) },
    keyRevoked,
  };
}
