import { CHANNELS, STOP_SETTLE_MS } from '@spillway/core';
import { createSenderService } from '@spillway/core/adapter';
import { hasClientStorage } from '@spillway/core/storage';
import type { Account, ApplicationStatus, ChannelId, RateCategory } from '@spillway/core';
import { readConfig } from './config.ts';
import { createServer } from './create-server.ts';
import type { SpillwayServer } from './create-server.ts';
import { buildDrivers, loadDriversConfig } from './drivers-config.ts';
import { exitWithLauncher } from './exit-with-launcher.ts';
import { readPlainAmount } from './plain-amount.ts';

/** The flags given on a command line, by name (`login` for `--login`). */
export type Flags = Readonly<Partial<Record<string, string>>>;

/** What a command on the configured database runs with. */
export interface AdminContext {
  /** A server on the configured database (no demo account; warnings only), closed after the command. */
  server: SpillwayServer;
  flags: Flags;
  /** The value of `--flag`, or an error saying it is required. */
  need(flag: string): string;
  /** The account of `--login`. */
  account(): Promise<Account>;
}

/** One command of the CLI: its line of the usage, and what it runs. */
export type CliCommand = {
  /** Its flags as the usage shows them: the `--flag`s in it are the ones it takes, and only those. */
  args: string;
  /** What it does, after it in the usage. */
  help?: string;
} & (
  | { /** Runs on its own. */ run: (flags: Flags) => Promise<void> }
  | { /** Runs on the configured database; what it answers is printed as JSON. */ admin: (context: AdminContext) => Promise<unknown> }
);

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

/**
 * How long past its deadline and settling time `spillway serve` lets a shutdown run before it
 * exits regardless, ms: only a stop that could not begin (a start still waiting for its database)
 * or one that hangs despite its deadline gets there.
 */
const SHUTDOWN_BACKSTOP_MS = 2_000;

/** `spillway serve`: the server until a signal (or the command that started it is gone). */
async function serve(flags: Flags): Promise<void> {
  if (flags['role'] !== undefined && !['all', 'api', 'worker'].includes(flags['role']))
    throw new Error(`--role is all, api or worker, got "${flags['role']}"`);
  const config = readConfig(flags['role'] ? { ...process.env, SPILLWAY_ROLE: flags['role'] } : process.env);
  // The signals are handled from the start: a stop while starting waits for the start to
  // finish, then stops cleanly.
  let server: SpillwayServer | undefined;
  let exitCode = 0;
  const started = (async () => {
    // A process whose workers died must not go on accepting what it cannot send: it stops and
    // exits 1, for its supervisor to start it again.
    server = await createServer(config, {
      onWorkersFailed: () => {
        exitCode = 1;
        shutdown();
      },
    });
    await server.listen();
  })();
  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    // The deadline runs from the signal, a start still under way included.
    const deadline = Date.now() + config.SPILLWAY_SHUTDOWN_GRACE_MS;
    // The stop keeps it; this is for a stop that cannot begin (a start still waiting for its
    // database) or that hangs despite it: the process exits all the same.
    const backstop = config.SPILLWAY_SHUTDOWN_GRACE_MS + STOP_SETTLE_MS + SHUTDOWN_BACKSTOP_MS;
    setTimeout(() => {
      const message = 'the shutdown overran its deadline: exiting now, what still ran is left as a crash leaves it';
      // A server still starting has no logger yet (its start waits for the database): stderr says it.
      if (server) server.logger.warn({ afterMs: backstop }, message);
      else console.error(`spillway: ${message} (the start was still waiting for the database)`);
      process.exit(1);
    }, backstop).unref();
    void started
      .catch(() => undefined)
      .then(async () => {
        server?.logger.info({ graceMs: config.SPILLWAY_SHUTDOWN_GRACE_MS }, 'shutting down');
        await server?.close({ deadline });
      })
      .catch((error: unknown) => {
        server?.logger.error({ err: error }, 'the shutdown failed');
        exitCode = 1;
      })
      .then(() => process.exit(exitCode));
  };
  // The same signal again (another Ctrl-C) ends the process at once, as a crash does: nothing
  // accepted is lost, what was in flight is the next process's. The other one (a wrapper that
  // turns the terminal's SIGINT into a SIGTERM) is the same request to stop.
  const received = new Set<NodeJS.Signals>();
  const signalled = (signal: NodeJS.Signals) => {
    if (received.has(signal)) {
      server?.logger.warn({ signal }, 'the signal again: exiting now without waiting for the shutdown');
      process.exit(1);
    }
    received.add(signal);
    shutdown();
  };
  process.on('SIGINT', signalled);
  process.on('SIGTERM', signalled);
  if (config.SPILLWAY_EXIT_WITH_LAUNCHER)
    exitWithLauncher(() => {
      server?.logger.warn('the command that started the server is gone');
      shutdown();
    });
  await started;
}

/**
 * An amount in currency units (plain decimal digits), or a clear error naming the flag. A top-up
 * must move money; an opening balance may be 0.
 */
function amountOf(value: string, flag: string, { zero = false } = {}): number {
  const amount = readPlainAmount(value) ?? Number.NaN;
  if (!(amount > 0 || (zero && amount === 0)))
    throw new Error(`--${flag} must be ${zero ? 'an amount of 0 or more' : 'a positive amount'}, got "${value}"`);
  return amount;
}

/** The `--id` of a command, a positive whole number as `what` shows them. */
function idOf({ need }: AdminContext, what: string): number {
  const id = Number(need('id'));
  if (!Number.isSafeInteger(id) || id <= 0) throw new Error(`--id is the numeric id shown by \`${what}\``);
  return id;
}

/** The channels of `--channels sms,chatapp`, checked; undefined without the flag. */
function channelsOf(flag: string | undefined): ChannelId[] | undefined {
  const names = flag?.split(',').map((c) => c.trim());
  if (names?.every((c) => c === '')) throw new Error(`--channels names at least one channel: ${CHANNELS.join(', ')}`);
  const unknown = names?.filter((c) => !(CHANNELS as readonly string[]).includes(c)) ?? [];
  if (unknown.length)
    throw new Error(`unknown channel(s): ${unknown.map((c) => JSON.stringify(c)).join(', ')}; known: ${CHANNELS.join(', ')}`);
  return names as ChannelId[] | undefined;
}

/** The alpha-name and bot applications of the storage. */
function sendersOf({ server }: AdminContext) {
  if (!hasClientStorage(server.storage)) throw new Error('this storage keeps no applications');
  return createSenderService({ storage: server.storage, accounts: server.engine.accounts, clock: server.engine.clock });
}

/**
 * Every command, by its words (`keys create`): the usage, the check of a command line and its
 * dispatch all read this one table, in this order.
 */
export const COMMANDS: Readonly<Record<string, CliCommand>> = {
  serve: {
    args: '[--role all|api|worker]',
    help: 'start the reference server (the API and the workers, or one of them)',
    run: serve,
  },
  'accounts create': {
    args: '--login L --password P [--name N] [--balance 100]',
    admin: ({ server, need, flags }) =>
      server.engine.accounts.create({
        login: need('login'),
        password: need('password'),
        ...(flags['name'] ? { name: flags['name'] } : {}),
        ...(flags['balance'] !== undefined ? { balance: amountOf(flags['balance'], 'balance', { zero: true }) } : {}),
      }),
  },
  'accounts topup': {
    args: '--login L --amount 25',
    admin: async ({ server, need, account }) => server.engine.accounts.topUp((await account()).id, amountOf(need('amount'), 'amount')),
  },
  'accounts rate-limit': {
    args: '--login L --category messaging|data --rate 200/300',
    help: '(--rate default resets)',
    admin: async ({ server, need, account }) => {
      const category = need('category') as RateCategory;
      if (category !== 'messaging' && category !== 'data') throw new Error('--category is messaging or data');
      const rate = need('rate');
      const m = /^(\d+)\/(\d+)$/.exec(rate);
      const valid = m && Number(m[1]) > 0 && Number(m[2]) >= Number(m[1]);
      if (rate !== 'default' && !valid) throw new Error('--rate is perSecond/burst with burst >= perSecond > 0, e.g. 200/300, or default');
      await server.engine.accounts.setRateLimit(
        (await account()).id,
        category,
        m ? { perSecond: Number(m[1]), burst: Number(m[2]) } : null,
      );
      // The storage bumps the credential revision with it: running servers verify the account again.
      return { ok: true };
    },
  },
  'keys create': {
    args: '--login L [--label default]',
    help: 'prints a new API key once',
    admin: async ({ server, flags, account }) => server.engine.accounts.createKey((await account()).id, flags['label']),
  },
  'keys list': {
    args: '--login L',
    admin: async ({ server, account }) => server.engine.accounts.listKeys((await account()).id),
  },
  'keys revoke': {
    args: '--login L --id N',
    admin: async (context) => {
      const id = idOf(context, 'keys list');
      const account = await context.account();
      // Nothing revoked is an error: a script must not go on believing the key is dead.
      if (!(await context.server.engine.accounts.revokeKey(account.id, id)))
        throw new Error(`no active API key ${id} of "${account.login}" (never one of its keys, or already revoked: see \`keys list\`)`);
      return { revoked: true };
    },
  },
  'alphanames approve': {
    args: '--login L --name Shop [--channels sms,chatapp,...]',
    help: 'adds the channels (default all), keeps the ones it has',
    // Additive, as an approved application is: `--channels sms` on a name with more channels had
    // set it to ["sms"], silently. Fewer channels is a revocation (`alphanames revoke`), with a reason.
    admin: async ({ server, flags, need, account }) => {
      const names = channelsOf(flags['channels']) ?? [...CHANNELS];
      const accountId = (await account()).id;
      const name = need('name');
      const had = (await server.engine.accounts.listAlphaNames(accountId)).find((a) => a.name === name)?.channels ?? [];
      const approved = await server.engine.accounts.approveAlphaName(accountId, name, [...new Set([...had, ...names])]);
      return { ...approved, added: approved.channels.filter((c) => !had.includes(c)) };
    },
  },
  'alphanames revoke': {
    args: '--login L --name Shop --reason R [--channels sms,...]',
    help: 'withdraws it from the channels (default all), sub-clients too',
    admin: async (context) => {
      const channels = channelsOf(context.flags['channels']);
      const body = { alphaName: context.need('name'), reason: context.need('reason'), ...(channels ? { channels } : {}) };
      const revoked = await sendersOf(context).revokeAlphaName((await context.account()).id, body);
      return {
        alphaName: revoked.alphaName,
        reason: revoked.reason,
        accounts: revoked.alphaNames.map((a) => ({ accountId: a.accountId, channels: a.withdrawn, channelsLeft: a.left })),
        applicationIds: revoked.applications.map((a) => a.id).sort((x, y) => x - y),
      };
    },
  },
  'alphanames list': {
    args: '--login L',
    admin: async ({ server, account }) => server.engine.accounts.listAlphaNames((await account()).id),
  },
  'bots revoke': {
    args: '--login L --name N --reason R [--kind messenger_bot|chatapp_bot]',
    help: 'its approved applications (both kinds by default) become revoked',
    admin: async (context) => {
      const kind = context.flags['kind'];
      if (kind !== undefined && kind !== 'messenger_bot' && kind !== 'chatapp_bot')
        throw new Error('--kind is messenger_bot or chatapp_bot');
      const body = { botName: context.need('name'), reason: context.need('reason'), ...(kind ? { kind } : {}) };
      return sendersOf(context).revokeBot((await context.account()).id, body);
    },
  },
  'applications list': {
    args: '[--status pending|approved|rejected|revoked]',
    help: 'alpha-name and bot applications',
    admin: (context) => {
      const status = context.flags['status'] as ApplicationStatus | undefined;
      if (status && !['pending', 'approved', 'rejected', 'revoked'].includes(status)) {
        throw new Error('--status is pending, approved, rejected or revoked');
      }
      return sendersOf(context).list(null, status ? { status } : {});
    },
  },
  'applications approve': {
    args: '--id N',
    admin: (context) => sendersOf(context).decide(idOf(context, 'applications list'), { status: 'approved' }),
  },
  'applications reject': {
    args: '--id N --reason R',
    admin: (context) =>
      sendersOf(context).decide(idOf(context, 'applications list'), { status: 'rejected', reason: context.need('reason') }),
  },
  'tokens keys': {
    args: '',
    help: 'list the JWT signing keys',
    admin: ({ server }) => server.tokens.listKeys(),
  },
  'tokens rotate': {
    args: '',
    help: 'sign new tokens with a new key (old tokens stay valid)',
    admin: ({ server }) => server.tokens.rotate(),
  },
  'tokens retire': {
    args: '--kid K',
    help: 'stop accepting tokens signed by key K',
    admin: async ({ server, need }) => {
      const kid = need('kid');
      if (!(await server.tokens.retire(kid))) {
        const known = (await server.tokens.listKeys()).some((k) => k.kid === kid);
        throw new Error(known ? `signing key "${kid}" is already retired` : `no signing key "${kid}" (see \`tokens keys\`)`);
      }
      return { retired: true };
    },
  },
  'drivers check': {
    args: '',
    help: "bind or ping every driver of SPILLWAY_CONFIG (accounts' too); exit 1 if one fails",
    run: async () => {
      const config = readConfig();
      const ok = await checkDrivers(config.SPILLWAY_CONFIG, config.SPILLWAY_PUBLIC_URL ?? `http://${config.HOST}:${config.PORT}`);
      process.exitCode = ok ? 0 : 1;
    },
  },
  'reachability show': {
    args: '--login L --phone P',
    help: 'channels the number was recently found not to be on',
    admin: async ({ server, need, account }) => server.engine.reachability.show((await account()).id, need('phone')),
  },
  'reachability clear': {
    args: '--login L --phone P [--channel C]',
    help: 'forget them (one channel, or all)',
    admin: async ({ server, flags, need, account }) =>
      server.engine.reachability.clear((await account()).id, need('phone'), flags['channel']),
  },
};

/** The flags a command takes, as its usage names them (`login` for `--login L`). */
export function flagsOf(command: CliCommand): string[] {
  return [...command.args.matchAll(/--([a-z][a-z-]*)/g)].map((m) => m[1]!);
}

/** The usage: every command of the table with its flags and what it does. */
export function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, { args, help }]) => {
    const line = `  ${name}${args ? ` ${args}` : ''}`;
    return help ? `${line.padEnd(39)}   ${help}` : line;
  });
  return `spillway <command>\n\n${lines.join('\n')}\n\nConfiguration comes from the environment (PORT, HOST, SPILLWAY_DB, ...): see README.md.`;
}

/**
 * The times of a command's answer as ISO 8601 text, as the API writes them: the storage's records
 * carry milliseconds since the epoch (`createdAt`, `expiresAt`, a reachability entry's `at`),
 * which nobody reads at a terminal.
 */
function isoTimes(key: string, value: unknown): unknown {
  return (key === 'at' || key.endsWith('At')) && Number.isSafeInteger(value) ? new Date(value as number).toISOString() : value;
}

/** Runs a command of the table with the flags given. */
export async function runCommand(command: CliCommand, flags: Flags): Promise<void> {
  if ('run' in command) return command.run(flags);
  const config = readConfig();
  const server = await createServer({ ...config, SPILLWAY_LOG_LEVEL: 'warn' }, { demoAccount: false });
  const need = (flag: string): string => {
    const value = flags[flag];
    if (!value) throw new Error(`--${flag} is required\n\n${usage()}`);
    return value;
  };
  const account = async () => {
    const login = need('login');
    const found = await server.engine.accounts.getByLogin(login);
    if (!found) throw new Error(`no account with login "${login}"`);
    return found;
  };
  try {
    console.log(JSON.stringify(await command.admin({ server, flags, need, account }), isoTimes, 2));
  } finally {
    await server.close();
  }
}
