import type { Engine, Storage } from '@spillway/core';
import { CHANNELS, fromMicros, SpillwayError, toMicros } from '@spillway/core';
import type { Logger } from 'pino';
import type { ServerConfig } from './config.ts';

export interface BootstrapResult {
  login: string;
  /** Set when the server generated credentials for a first start without configuration. */
  generated?: { password: string; key: string };
  /** What this start did with the opening balance, when one is configured. */
  openingBalance?: OpeningBalance;
  /** SPILLWAY_BOOTSTRAP_API_KEY names a key that was revoked: it stays revoked. */
  keyRevoked?: boolean;
}

/**
 * What a start did with SPILLWAY_BOOTSTRAP_BALANCE, the bootstrap account's opening balance,
 * credited once per database: `credited` by this start, `reached` (this start found the balance
 * at the amount already: another process starting at once credited it, or the wallet had it
 * before), or `earlier` (an earlier start credited it, nothing done). Amounts in units of the
 * account's currency.
 */
export interface OpeningBalance {
  outcome: 'credited' | 'reached' | 'earlier';
  /** The configured amount (SPILLWAY_BOOTSTRAP_BALANCE). */
  target: number;
  /** What this start credited: 0 unless `credited`. */
  credited: number;
  /** The balance after this start. */
  balance: number;
  currency: string;
}

/** The description of the wallet transaction that credits the opening balance. */
const OPENING_CREDIT = 'bootstrap balance';

/**
 * The setting that says an account's opening balance was credited (its value: the amount then
 * configured), so that later starts read one key instead of the wallet.
 */
const openingMark = (accountId: number) => `bootstrap-balance:${accountId}`;

/** A unique-key conflict: another process bootstrapping the same database created the row meanwhile. */
const lostRace = (error: unknown): boolean => error instanceof SpillwayError && error.code === 'conflict';

function randomSecret(bytes: number): string {
  const buf = new Uint8Array(bytes);
  crypto.getRandomValues(buf);
  return Buffer.from(buf).toString('base64url');
}

/**
 * Ensures the bootstrap account at every start (idempotent): the login and password, the API
 * key, the approved alpha-names, and the opening balance, credited once per database. A later
 * start writes nothing that is already as configured, so it takes no lock on the account's row
 * (the ingest's transactions hold it under load). Without configuration (and with `demo`),
 * {@link createDemoAccount}.
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
  const { openingBalance, keyRevoked } = await provision(engine, account.id, {
    key: config.SPILLWAY_BOOTSTRAP_API_KEY,
    alphaNames: config.SPILLWAY_BOOTSTRAP_ALPHA_NAMES ?? '',
    balance: config.SPILLWAY_BOOTSTRAP_BALANCE,
  });
  return {
    login,
    ...(openingBalance ? { openingBalance: { ...openingBalance, currency: account.currency } } : {}),
    ...(keyRevoked ? { keyRevoked } : {}),
  };
}

/**
 * Logs what a start's bootstrap did with the opening balance, one line a start: credited, found
 * reached, or credited at an earlier start. The balance used to be topped up to the configured
 * amount at every start, so that restarts refilled an account that had spent its money.
 */
export function logBootstrap(logger: Logger, result: BootstrapResult | null): void {
  if (result?.keyRevoked) {
    logger.warn(
      { login: result.login },
      `bootstrap account ${result.login}: SPILLWAY_BOOTSTRAP_API_KEY names a key that was revoked; it stays revoked ` +
        '(a revoked key may have leaked): set a new key there, or unset it and use spillway keys create',
    );
  }
  const opening = result?.openingBalance;
  if (!result || !opening) return;
  const { outcome, target, credited, balance, currency } = opening;
  const fields = { login: result.login, openingBalance: outcome, target, credited, balance, currency };
  const said = `bootstrap account ${result.login}:`;
  const once = 'SPILLWAY_BOOTSTRAP_BALANCE is credited once per database; spillway accounts topup adds more';
  switch (outcome) {
    case 'credited':
      logger.info(fields, `${said} opening balance credited (${credited}), its balance is ${balance}; ${once}`);
      return;
    case 'reached':
      logger.info(fields, `${said} its balance ${balance} already reaches the opening balance ${target}, nothing credited; ${once}`);
      return;
    case 'earlier':
      logger.info(fields, `${said} opening balance already credited at an earlier start, nothing done (balance ${balance}); ${once}`);
      return;
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
 * Gives an account its API key, approved alpha-names (comma-separated) and opening balance;
 * answers what became of the opening balance (null without one).
 */
async function provision(
  engine: Engine,
  accountId: number,
  given: { key: string | undefined; alphaNames: string; balance: number | undefined },
): Promise<{ openingBalance: Omit<OpeningBalance, 'currency'> | null; keyRevoked: boolean }> {
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
  // Only names not yet approved on every channel are written: what is approved already stays as
  // it is, without a write at every start.
  const approved = new Set(
    (await engine.accounts.listAlphaNames(accountId)).filter((a) => CHANNELS.every((c) => a.channels.includes(c))).map((a) => a.name),
  );
  for (const name of names) if (!approved.has(name)) await engine.accounts.approveAlphaName(accountId, name);
  if (given.balance === undefined) return { openingBalance: null, keyRevoked };
  return { openingBalance: await creditOpeningBalance(engine, accountId, given.balance), keyRevoked };
}

/**
 * Credits the opening balance unless an earlier start did: the mark (a setting) says so, or,
 * without it (a start that crashed before writing it, or a database bootstrapped before the
 * mark), a `bootstrap balance` top-up in the wallet. The credit reads the balance and credits what
 * is missing in one step under the database's lock (`topUpTo`), so processes bootstrapping one
 * fresh database at once credit it once; a later start takes no lock at all.
 */
async function creditOpeningBalance(engine: Engine, accountId: number, target: number): Promise<Omit<OpeningBalance, 'currency'>> {
  const { storage } = engine;
  const mark = openingMark(accountId);
  const marked = (await storage.getSetting(mark)) !== null;
  const earlier = marked || (await hasOpeningCredit(storage, accountId));
  const credit = earlier
    ? null
    : await storage.topUpTo(
        { accountId, kind: 'topup', messageId: null, description: OPENING_CREDIT },
        toMicros(target),
        engine.clock.now(),
      );
  // Marked after the credit, never before: a start that dies in between leaves the wallet's top-up to say it.
  if (!marked) await storage.setSettingIfAbsent(mark, String(target));
  const balance = credit ? credit.balanceAfter : await storage.getBalance(accountId);
  return {
    outcome: earlier ? 'earlier' : credit ? 'credited' : 'reached',
    target,
    credited: fromMicros(credit?.amount ?? 0),
    balance: fromMicros(balance),
  };
}

/** Whether the account's wallet holds a `bootstrap balance` top-up (read page by page, newest first: only when the mark is missing). */
async function hasOpeningCredit(storage: Storage, accountId: number): Promise<boolean> {
  const pageSize = 200;
  for (let page = 1; ; page++) {
    const { items, total } = await storage.listWalletTransactions(accountId, { kinds: ['topup'], page, pageSize });
    if (items.some((t) => t.description === OPENING_CREDIT)) return true;
    if (page * pageSize >= total) return false;
  }
}
