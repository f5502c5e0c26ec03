#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { CHANNELS } from '@spillway/core';
import { createSenderService } from '@spillway/core/adapter';
import { hasClientStorage } from '@spillway/core/storage';
import type { ApplicationStatus, ChannelId, RateCategory } from '@spillway/core';
import { readConfig } from './config.ts';
import { createServer } from './create-server.ts';
import { buildDrivers, loadDriversConfig } from './drivers-config.ts';
import { exitWithLauncher } from './exit-with-launcher.ts';

/** `spillway drivers check`: the configured drivers' own checks, one line each; false when one fails. */
async function checkDrivers(file: string | undefined, publicUrl: string): Promise<boolean> {
  if (!file) {
    console.log('SPILLWAY_CONFIG is not set: every channel uses the simulator.');
    return true;
  }
  const built = buildDrivers(await loadDriversConfig(file), process.env, () => publicUrl);
  let ok = true;
  for (const driver of built.all) {
    // The timer keeps the process up while a check waits: a driver's own timers never do (an SMPP
    // bind refused or not answered left nothing else, and the command exited 0 without a word).
    let timer: ReturnType<typeof setTimeout> | undefined;
    const result = driver.check
      ? await Promise.race([
          driver.check(),
          new Promise<{ ok: boolean; detail: string }>((resolve) => {
            timer = setTimeout(() => resolve({ ok: false, detail: 'no answer within 15 s' }), 15_000);
          }),
        ]).finally(() => clearTimeout(timer))
      : { ok: true, detail: 'nothing to check' };
    ok &&= result.ok;
    const owner = built.ownerOf.get(driver.name);
    const serves = `${driver.channels.join(', ')}${owner ? `, account ${owner}` : ''}`;
    console.log(`${result.ok ? 'ok    ' : 'FAILED'} ${driver.name} (${serves}): ${result.detail}`);
  }
  for (const channel of built.unconfigured) console.log(`-      ${channel}: simulator`);
  await Promise.all(built.all.map((d) => d.close?.()));
  return ok;
}

const USAGE = `spillway <command>

  serve [--role all|api|worker]           start the reference server (the API and the workers, or one of them)
  accounts create --login L --password P [--name N] [--balance 100]
  accounts topup --login L --amount 25
  accounts rate-limit --login L --category messaging|data --rate 200/300   (--rate default resets)
  keys create --login L [--label default]   prints a new API key once
  keys list --login L
  keys revoke --login L --id N
  alphanames approve --login L --name Shop [--channels sms,chatapp,...]
  alphanames list --login L
  applications list [--status pending|approved|rejected|revoked] alpha-name and bot applications
  applications approve --id N
  applications reject --id N --reason R
  tokens keys                             list the JWT signing keys
  tokens rotate                           sign new tokens with a new key (old tokens stay valid)
  tokens retire --kid K                   stop accepting tokens signed by key K
  drivers check                           bind or ping every driver of SPILLWAY_CONFIG (accounts' too); exit 1 if one fails
  reachability show --login L --phone P   channels the number was recently found not to be on
  reachability clear --login L --phone P [--channel C]   forget them (one channel, or all)

Configuration comes from the environment (PORT, HOST, SPILLWAY_DB, ...): see README.md.`;

/** Each command and its subcommands (none: the command stands alone). */
const COMMANDS: Record<string, readonly string[]> = {
  serve: [],
  accounts: ['create', 'topup', 'rate-limit'],
  keys: ['create', 'list', 'revoke'],
  alphanames: ['approve', 'list'],
  applications: ['list', 'approve', 'reject'],
  tokens: ['keys', 'rotate', 'retire'],
  drivers: ['check'],
  reachability: ['show', 'clear'],
};

/**
 * Refuses a command line that names no command, half of one or more than one, before anything
 * runs: `serve extra` started the server, `accounts` alone said `unknown command "accounts "`.
 */
function checkCommand(positionals: readonly string[]): void {
  const [command = '', sub, ...extra] = positionals;
  const subs = COMMANDS[command];
  if (!subs) throw new Error(`unknown command "${command}"; commands: ${Object.keys(COMMANDS).join(', ')}\n\n${USAGE}`);
  if (subs.length === 0 && sub !== undefined) throw new Error(`unexpected argument "${sub}" after "${command}"\n\n${USAGE}`);
  if (subs.length > 0 && sub === undefined) throw new Error(`"${command}" needs a subcommand: ${subs.join(', ')}\n\n${USAGE}`);
  if (sub !== undefined && subs.length > 0 && !subs.includes(sub)) {
    throw new Error(`unknown command "${command} ${sub}"; "${command}" takes: ${subs.join(', ')}\n\n${USAGE}`);
  }
  if (extra.length > 0) throw new Error(`unexpected argument "${extra[0]}" after "${command} ${sub}"\n\n${USAGE}`);
}

/**
 * An amount in currency units (plain decimal digits: `Number` also read "", "0x10" and "1e3"), or a
 * clear error naming the flag. A top-up must move money; an opening balance may be 0.
 */
function amountOf(value: string, flag: string, { zero = false } = {}): number {
  const amount = /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!(amount > 0 || (zero && amount === 0)))
    throw new Error(`--${flag} must be ${zero ? 'an amount of 0 or more' : 'a positive amount'}, got "${value}"`);
  return amount;
}

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      login: { type: 'string' },
      password: { type: 'string' },
      name: { type: 'string' },
      balance: { type: 'string' },
      amount: { type: 'string' },
      label: { type: 'string' },
      channels: { type: 'string' },
      kid: { type: 'string' },
      id: { type: 'string' },
      category: { type: 'string' },
      rate: { type: 'string' },
      role: { type: 'string' },
      status: { type: 'string' },
      reason: { type: 'string' },
      phone: { type: 'string' },
      channel: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, sub] = positionals;
  if (!command || values.help) {
    console.log(USAGE);
    return;
  }
  checkCommand(positionals);
  if (values.role !== undefined && !['all', 'api', 'worker'].includes(values.role))
    throw new Error(`--role is all, api or worker, got "${values.role}"`);
  const config = readConfig(values.role ? { ...process.env, SPILLWAY_ROLE: values.role } : process.env);
  if (command === 'drivers') {
    if (sub !== 'check') throw new Error(`unknown command "drivers ${sub ?? ''}"\n\n${USAGE}`);
    const ok = await checkDrivers(config.SPILLWAY_CONFIG, config.SPILLWAY_PUBLIC_URL ?? `http://${config.HOST}:${config.PORT}`);
    process.exitCode = ok ? 0 : 1;
    return;
  }
  if (command === 'serve') {
    // The signals are handled from the start: a stop while starting waits for the start to
    // finish, then stops cleanly.
    let server: Awaited<ReturnType<typeof createServer>> | undefined;
    const started = (async () => {
      server = await createServer(config);
      await server.listen();
    })();
    let stopping = false;
    const shutdown = () => {
      if (stopping) return;
      stopping = true;
      void started
        .catch(() => undefined)
        .then(async () => {
          server?.logger.info('shutting down');
          await server?.close();
        })
        .then(() => process.exit(0));
    };
    process.once('SIGINT', shutdown);
    process.once('SIGTERM', shutdown);
    exitWithLauncher(() => {
      server?.logger.warn('the command that started the server is gone');
      shutdown();
    });
    await started;
    return;
  }

  const server = await createServer({ ...config, SPILLWAY_LOG_LEVEL: 'warn' }, { demoAccount: false });
  const { engine } = server;
  const need = (value: string | undefined, flag: string): string => {
    if (!value) throw new Error(`--${flag} is required\n\n${USAGE}`);
    return value;
  };
  const accountOf = async () => {
    const login = need(values.login, 'login');
    const account = await engine.accounts.getByLogin(login);
    if (!account) throw new Error(`no account with login "${login}"`);
    return account;
  };
  const print = (value: unknown) => console.log(JSON.stringify(value, null, 2));
  try {
    switch (`${command} ${sub ?? ''}`.trim()) {
      case 'accounts create': {
        const account = await engine.accounts.create({
          login: need(values.login, 'login'),
          password: need(values.password, 'password'),
          ...(values.name ? { name: values.name } : {}),
          ...(values.balance !== undefined ? { balance: amountOf(values.balance, 'balance', { zero: true }) } : {}),
        });
        print(account);
        break;
      }
      case 'accounts topup':
        print(await engine.accounts.topUp((await accountOf()).id, amountOf(need(values.amount, 'amount'), 'amount')));
        break;
      case 'accounts rate-limit': {
        const category = need(values.category, 'category') as RateCategory;
        if (category !== 'messaging' && category !== 'data') throw new Error('--category is messaging or data');
        const rate = need(values.rate, 'rate');
        const m = /^(\d+)\/(\d+)$/.exec(rate);
        const valid = m && Number(m[1]) > 0 && Number(m[2]) >= Number(m[1]);
        if (rate !== 'default' && !valid)
          throw new Error('--rate is perSecond/burst with burst >= perSecond > 0, e.g. 200/300, or default');
        await engine.accounts.setRateLimit((await accountOf()).id, category, m ? { perSecond: Number(m[1]), burst: Number(m[2]) } : null);
        // The storage bumps the credential revision with it: running servers verify the account again.
        print({ ok: true });
        break;
      }
      case 'keys create':
        print(await engine.accounts.createKey((await accountOf()).id, values.label));
        break;
      case 'keys revoke': {
        const id = Number(need(values.id, 'id'));
        if (!Number.isSafeInteger(id) || id <= 0) throw new Error('--id is the numeric id shown by `keys list`');
        const account = await accountOf();
        // Nothing revoked is an error: a script must not go on believing the key is dead.
        if (!(await engine.accounts.revokeKey(account.id, id)))
          throw new Error(`no active API key ${id} of "${account.login}" (never one of its keys, or already revoked: see \`keys list\`)`);
        print({ revoked: true });
        break;
      }
      case 'keys list':
        print(await engine.accounts.listKeys((await accountOf()).id));
        break;
      case 'alphanames approve': {
        const names = values.channels?.split(',').map((c) => c.trim());
        if (names?.every((c) => c === '')) throw new Error(`--channels names at least one channel: ${CHANNELS.join(', ')}`);
        const unknown = names?.filter((c) => !(CHANNELS as readonly string[]).includes(c)) ?? [];
        const channels = names as ChannelId[] | undefined;
        if (unknown.length)
          throw new Error(`unknown channel(s): ${unknown.map((c) => JSON.stringify(c)).join(', ')}; known: ${CHANNELS.join(', ')}`);
        print(await engine.accounts.approveAlphaName((await accountOf()).id, need(values.name, 'name'), channels));
        break;
      }
      case 'alphanames list':
        print(await engine.accounts.listAlphaNames((await accountOf()).id));
        break;
      case 'applications list':
      case 'applications approve':
      case 'applications reject': {
        if (!hasClientStorage(server.storage)) throw new Error('this storage keeps no applications');
        const senders = createSenderService({ storage: server.storage, accounts: engine.accounts, clock: engine.clock });
        if (sub === 'list') {
          const status = values.status as ApplicationStatus | undefined;
          if (status && !['pending', 'approved', 'rejected', 'revoked'].includes(status)) {
            throw new Error('--status is pending, approved, rejected or revoked');
          }
          print(await senders.list(null, status ? { status } : {}));
          break;
        }
        const id = Number(need(values.id, 'id'));
        if (!Number.isSafeInteger(id) || id <= 0) throw new Error('--id is the numeric id shown by `applications list`');
        print(
          await senders.decide(
            id,
            sub === 'approve' ? { status: 'approved' } : { status: 'rejected', reason: need(values.reason, 'reason') },
          ),
        );
        break;
      }
      case 'reachability show':
        print(await engine.reachability.show((await accountOf()).id, need(values.phone, 'phone')));
        break;
      case 'reachability clear':
        print(await engine.reachability.clear((await accountOf()).id, need(values.phone, 'phone'), values.channel));
        break;
      case 'tokens keys':
        print(await server.tokens.listKeys());
        break;
      case 'tokens rotate':
        print(await server.tokens.rotate());
        break;
      case 'tokens retire': {
        const kid = need(values.kid, 'kid');
        if (!(await server.tokens.retire(kid))) {
          const known = (await server.tokens.listKeys()).some((k) => k.kid === kid);
          throw new Error(known ? `signing key "${kid}" is already retired` : `no signing key "${kid}" (see \`tokens keys\`)`);
        }
        print({ retired: true });
        break;
      }
      default:
        throw new Error(`unknown command "${command} ${sub ?? ''}"\n\n${USAGE}`);
    }
  } finally {
    await server.close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
