import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createServer, readConfig } from '@spillway/server';
import { runCli } from '../support/cli.ts';
import { WARN, capturedLog } from '../support/server-log.ts';

const dir = mkdtempSync(join(tmpdir(), 'spillway-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The message of readConfig's refusal, or null when it accepts. */
function refusal(env: Record<string, string>): string | null {
  try {
    readConfig(env);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

describe('readConfig: an empty variable is an unset one', () => {
  // Regression: `PORT=` listened on a random port, `HOST=` on every interface, `SPILLWAY_DB=` on a
  // throwaway file (and the workers' thread on another), `SPILLWAY_REACHABILITY_TTL=` turned the
  // memory off and `SPILLWAY_DB_BUSY_TIMEOUT_MS=` made every write give up at once, while
  // `SPILLWAY_ADMIN_KEY=`, `SPILLWAY_LOG_LEVEL=` or `SPILLWAY_RATE_CARD=` stopped the start.
  it('gives every variable its default when it is empty or blank', () => {
    const defaults = readConfig({});
    const names = Object.keys(defaults).filter((name) => name !== 'SPILLWAY_BOOTSTRAP_PASSWORD' && name !== 'SPILLWAY_BOOTSTRAP_LOGIN');
    const all = [
      ...names,
      'SPILLWAY_ADMIN_KEY',
      'SPILLWAY_RATE_CARD',
      'SPILLWAY_SOCIAL_TOKEN_KEY',
      'SPILLWAY_GATEWAY_SECRET',
      'SPILLWAY_PUBLIC_URL',
      'SPILLWAY_SMTP_URL',
      'SPILLWAY_JWT_SECRET',
      'SPILLWAY_METRICS_PORT',
      'DATABASE_URL',
    ];
    for (const blank of ['', '  ']) {
      const env = Object.fromEntries(all.map((name) => [name, blank]));
      expect(readConfig(env)).toEqual(defaults);
    }
    expect(defaults).toMatchObject({
      PORT: 8080,
      HOST: '127.0.0.1',
      SPILLWAY_DB: './data/spillway.db',
      SPILLWAY_DB_BUSY_TIMEOUT_MS: 5000,
      SPILLWAY_REACHABILITY_TTL: 604_800,
      SPILLWAY_SHUTDOWN_GRACE_MS: 10_000,
      SPILLWAY_LOG_LEVEL: 'info',
    });
    expect(defaults.DATABASE_URL).toBeUndefined();
  });
});

describe('readConfig: values', () => {
  // Regression: numbers went through `Number`, so "0x1F90" was port 8080 and "1e3" a 1000 ms grace;
  // zod's messages ("expected number, received NaN") did not say what was given.
  it('takes whole numbers in plain digits only, naming the variable, the range and the value', () => {
    expect(readConfig({ PORT: ' 8081 ', SPILLWAY_HTTP_THREADS: '2' })).toMatchObject({ PORT: 8081, SPILLWAY_HTTP_THREADS: 2 });
    expect(refusal({ PORT: '0x1F90' })).toMatch(/^ {2}PORT: expected a whole number from 0 to 65535, got "0x1F90"$/m);
    expect(refusal({ SPILLWAY_SHUTDOWN_GRACE_MS: '1e3' })).toMatch(
      /SPILLWAY_SHUTDOWN_GRACE_MS: expected a whole number of 0 or more, got "1e3"/,
    );
    expect(refusal({ SPILLWAY_REACHABILITY_TTL: '-1' })).toMatch(/SPILLWAY_REACHABILITY_TTL: .*got "-1"/);
    expect(refusal({ SPILLWAY_METRICS_PORT: 'x' })).toMatch(/SPILLWAY_METRICS_PORT: expected a whole number from 0 to 65535, got "x"/);
    expect(
      refusal({ SPILLWAY_BOOTSTRAP_LOGIN: 'ops', SPILLWAY_BOOTSTRAP_PASSWORD: 'ops-password', SPILLWAY_BOOTSTRAP_BALANCE: '0x10' }),
    ).toMatch(/SPILLWAY_BOOTSTRAP_BALANCE: expected an amount of 0 or more such as 100 or 12\.50, got "0x10"/);
  });

  it('takes the names of a choice in any case and says what it got otherwise', () => {
    expect(readConfig({ SPILLWAY_LOG_LEVEL: 'WARN', SPILLWAY_ROLE: 'Api' })).toMatchObject({
      SPILLWAY_LOG_LEVEL: 'warn',
      SPILLWAY_ROLE: 'api',
    });
    expect(refusal({ SPILLWAY_ROLE: 'workers' })).toMatch(/SPILLWAY_ROLE: expected one of all, api, worker, got "workers"/);
  });

  // Regression: each of these started, and failed later (a listen error, every e-mail, the first
  // bootstrap, short links) or never (a secret too short to sign with was refused only by the
  // token service, an `ftp:` public URL went into every short link).
  it('refuses what cannot work, at the start, naming the variable', () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ HOST: 'not a host' }, /HOST: expected an IP address or a host name \(got "not a host"\)/],
      [{ SPILLWAY_JWT_SECRET: 'short' }, /SPILLWAY_JWT_SECRET: at least 32 characters$/m],
      [{ SPILLWAY_SMTP_URL: 'smtp://' }, /SPILLWAY_SMTP_URL: an smtp:\/\/ or smtps:\/\/ URL with a host/],
      [{ SPILLWAY_SMTP_FROM: 'Shop' }, /SPILLWAY_SMTP_FROM: expected an address, bare or as Name <address> \(got "Shop"\)/],
      [
        { SPILLWAY_PUBLIC_URL: 'ftp://shop.example' },
        /SPILLWAY_PUBLIC_URL: expected an http:\/\/ or https:\/\/ URL, got "ftp:\/\/shop\.example"/,
      ],
      [{ SPILLWAY_SOCIAL_GRAPH_URL: 'graph.example' }, /SPILLWAY_SOCIAL_GRAPH_URL: expected an http:\/\/ or https:\/\/ URL/],
      [{ SPILLWAY_BOOTSTRAP_LOGIN: 'ops', SPILLWAY_BOOTSTRAP_PASSWORD: 'short' }, /SPILLWAY_BOOTSTRAP_PASSWORD: at least 8 characters$/m],
      [{ SPILLWAY_BOOTSTRAP_LOGIN: 'ops' }, /SPILLWAY_BOOTSTRAP_PASSWORD: required with SPILLWAY_BOOTSTRAP_LOGIN/],
      [
        {
          SPILLWAY_BOOTSTRAP_LOGIN: 'ops',
          SPILLWAY_BOOTSTRAP_PASSWORD: 'ops-password',
          SPILLWAY_BOOTSTRAP_ALPHA_NAMES: `Ops,${'x'.repeat(65)}`,
        },
        /SPILLWAY_BOOTSTRAP_ALPHA_NAMES: an alpha-name has 1 to 64 characters, got "x{65}" \(65\)/,
      ],
    ];
    for (const [env, message] of cases) expect(refusal(env), JSON.stringify(env)).toMatch(message);
    expect(readConfig({ SPILLWAY_SMTP_FROM: 'Shop <shop@example.com>' }).SPILLWAY_SMTP_FROM).toBe('Shop <shop@example.com>');
    expect(readConfig({ SPILLWAY_PUBLIC_URL: 'http://127.0.0.1:8080', SPILLWAY_SOCIAL_GRAPH_URL: 'http://localhost/graph' })).toMatchObject(
      {
        SPILLWAY_PUBLIC_URL: 'http://127.0.0.1:8080',
        SPILLWAY_SOCIAL_GRAPH_URL: 'http://localhost/graph',
      },
    );
    expect(readConfig({ SPILLWAY_SMTP_FROM: 'shop@example.com', HOST: '::1' }).HOST).toBe('::1');
  });

  // Regression: `http:shop.example` (no `//`) was taken as the public origin, and a URL with blanks
  // around it went into every short link with them.
  it('takes an http(s) URL written out whole, without the blanks around it', () => {
    expect(refusal({ SPILLWAY_PUBLIC_URL: 'http:shop.example' })).toMatch(
      /^ {2}SPILLWAY_PUBLIC_URL: expected an http:\/\/ or https:\/\/ URL, got "http:shop\.example"$/m,
    );
    expect(readConfig({ SPILLWAY_PUBLIC_URL: ' https://shop.example/s ' }).SPILLWAY_PUBLIC_URL).toBe('https://shop.example/s');
  });

  // Regression: the bootstrap password, key, alpha-names and balance were silently ignored without
  // the login they are for.
  it('refuses a bootstrap variable set without SPILLWAY_BOOTSTRAP_LOGIN', () => {
    const message = refusal({ SPILLWAY_BOOTSTRAP_API_KEY: 'sk_ops_key_0123456789', SPILLWAY_BOOTSTRAP_BALANCE: '20' });
    expect(message).toMatch(/SPILLWAY_BOOTSTRAP_API_KEY: set without SPILLWAY_BOOTSTRAP_LOGIN, the account it is for/);
    expect(message).toMatch(/SPILLWAY_BOOTSTRAP_BALANCE: set without SPILLWAY_BOOTSTRAP_LOGIN/);
  });

  it('never repeats a secret in its message', () => {
    const message = refusal({ SPILLWAY_ADMIN_KEY: 'hunter2', SPILLWAY_SOCIAL_TOKEN_KEY: 'tok-secret' });
    expect(message).toMatch(/SPILLWAY_ADMIN_KEY: at least 16 characters/);
    expect(message).not.toMatch(/hunter2|tok-secret/);
  });
});

describe('readConfig: misspelt variables', () => {
  // Regression: a misspelt name was silently ignored: SPILLWAY_DATABSE_URL left the server on SQLite.
  it('refuses a SPILLWAY_ name close to a real one, naming the one it resembles', () => {
    const cases: Array<[string, string]> = [
      ['SPILLWAY_DATABSE_URL', 'DATABASE_URL'],
      ['SPILLWAY_DATABASE_URL', 'DATABASE_URL'],
      ['SPILLWAY_PORT', 'PORT'],
      ['SPILLWAY_WORKER_THREADS', 'SPILLWAY_WORKER_THREAD'],
      ['SPILLWAY_LOGLEVEL', 'SPILLWAY_LOG_LEVEL'],
      ['SPILLWAY_SHUTDOWN_GRACE', 'SPILLWAY_SHUTDOWN_GRACE_MS'],
      ['SPILLWAY_REACHABILITY_TTL_SECONDS', 'SPILLWAY_REACHABILITY_TTL'],
      ['SPILLWAY_BOOTSTRAP_APIKEY', 'SPILLWAY_BOOTSTRAP_API_KEY'],
    ];
    for (const [name, meant] of cases) {
      expect(refusal({ [name]: '1' }), name).toBe(`invalid configuration:\n  ${name}: not a Spillway variable; did you mean ${meant}?`);
    }
  });

  it("leaves alone SPILLWAY_ names of other tools (the tests', the benchmarks', a driver secret read with env:)", () => {
    const others = [
      'SPILLWAY_TEST_STORAGE',
      'SPILLWAY_BENCH_ROUNDS',
      'SPILLWAY_BENCH_SERVER_ROOT',
      'SPILLWAY_SCREENSHOTS',
      'SPILLWAY_KEY',
      'SPILLWAY_SMPP_PASSWORD',
      'SPILLWAY_DB_PASSWORD',
      'SPILLWAY_SMTP_URL_BACKUP',
    ];
    expect(() => readConfig(Object.fromEntries(others.map((name) => [name, 'x'])))).not.toThrow();
  });
});

describe('spillway serve: what it cannot open or listen on', () => {
  // Regression: "file is not a database", "listen EADDRINUSE ..." and "connect ECONNREFUSED ..."
  // named no variable.
  it('names SPILLWAY_DB when the file is not a database', async () => {
    const file = join(dir, 'not-a-database.db');
    writeFileSync(file, 'these are my notes, not a database\n'.repeat(100));
    const failed = (await runCli(['serve'], { DATABASE_URL: '', SPILLWAY_DB: file, PORT: '0', SPILLWAY_LOG_LEVEL: 'silent' }).catch(
      (error: unknown) => error,
    )) as { code: number; stderr: string };
    expect(failed.code).toBe(1);
    expect(failed.stderr.trim()).toBe(`SPILLWAY_DB: cannot use the SQLite file "${file}": file is not a database`);
  }, 30_000);

  // Regression: a SPILLWAY_DB under /proc never started nor failed (Node 20's recursive mkdir loops
  // there), and one under a regular file said only "ENOTDIR: not a directory, mkdir ...".
  it.skipIf(process.platform !== 'linux')(
    'names SPILLWAY_DB at once when its folder cannot be created under /proc',
    async () => {
      const file = '/proc/spillway-nope/x.db';
      const failed = (await runCli(
        ['serve'],
        { DATABASE_URL: '', SPILLWAY_DB: file, PORT: '0', SPILLWAY_LOG_LEVEL: 'silent' },
        { timeoutMs: 20_000 },
      ).catch((error: unknown) => error)) as { code: number | null; killed: boolean; stderr: string };
      expect(failed.killed).toBe(false);
      expect(failed.code).toBe(1);
      expect(failed.stderr.trim()).toMatch(
        /^SPILLWAY_DB: cannot use the SQLite file "\/proc\/spillway-nope\/x\.db": cannot create the folder "\/proc\/spillway-nope": ENOENT/,
      );
    },
    30_000,
  );

  it('names SPILLWAY_DB and the file in the way when its folder would be under a regular file', async () => {
    const notes = join(dir, 'notes.txt');
    writeFileSync(notes, 'not a folder\n');
    const file = join(notes, 'data', 'x.db');
    const config = readConfig({ DATABASE_URL: '', SPILLWAY_DB: file, PORT: '0', SPILLWAY_LOG_LEVEL: 'silent' });
    await expect(createServer(config, { bootstrap: false, designerDir: false })).rejects.toThrow(
      `SPILLWAY_DB: cannot use the SQLite file "${file}": "${notes}" is not a folder`,
    );
  });

  it('names PORT and HOST when the port is taken', async () => {
    const taken = createHttpServer();
    await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
    const port = (taken.address() as AddressInfo).port;
    try {
      const failed = (await runCli(['serve'], {
        DATABASE_URL: '',
        SPILLWAY_DB: join(dir, 'taken.db'),
        PORT: String(port),
        SPILLWAY_LOG_LEVEL: 'silent',
      }).catch((error: unknown) => error)) as { code: number; stderr: string };
      expect(failed.code).toBe(1);
      expect(failed.stderr).toMatch(new RegExp(`^PORT, HOST: cannot listen on 127\\.0\\.0\\.1:${port}: listen EADDRINUSE`, 'm'));
    } finally {
      await new Promise<void>((done) => taken.close(() => done()));
    }
  }, 30_000);
});

describe('SPILLWAY_METRICS_PORT outside the worker role', () => {
  // Regression: set on a server that runs the API, it was silently ignored (no port opened).
  it('is said in a warning, not silently ignored', async () => {
    const { logger, lines } = capturedLog();
    const config = readConfig({
      SPILLWAY_DB: ':memory:',
      PORT: '0',
      HOST: '127.0.0.1',
      SPILLWAY_METRICS_PORT: '9464',
      SPILLWAY_LOG_LEVEL: 'silent',
    });
    const server = await createServer(config, { logger, bootstrap: false, designerDir: false });
    try {
      await server.listen();
      expect(lines.filter((l) => l.level === WARN).map((l) => l.msg)).toContain(
        'SPILLWAY_METRICS_PORT is for SPILLWAY_ROLE=worker only: this process serves /metrics on its API port',
      );
    } finally {
      await server.close();
    }
  });
});

describe('spillway command line', () => {
  /**
   * How the command line ends for `args`, on a database file of its own: `exited 0`, or its exit
   * code and the first line it wrote to stderr. PORT 0: were a refused `serve` to start again, it
   * would not take a port another server may use.
   */
  const stderrOn = (file: string) => (args: string[]) =>
    runCli(args, { DATABASE_URL: '', SPILLWAY_DB: join(dir, file), PORT: '0', SPILLWAY_LOG_LEVEL: 'silent' }).then(
      () => 'exited 0',
      (error: { code: number; stderr: string }) => `${error.code} ${error.stderr.split('\n')[0]}`,
    );

  // Regression: `serve extra` started the server, `accounts` alone said `unknown command "accounts "`.
  it('refuses a missing subcommand and extra arguments before anything runs', async () => {
    const stderr = stderrOn('args.db');
    expect(await stderr(['serve', 'extra'])).toBe('1 unexpected argument "extra" after "serve"');
    expect(await stderr(['accounts'])).toBe('1 "accounts" needs a subcommand: create, topup, rate-limit');
    expect(await stderr(['accounts', 'delete'])).toBe('1 unknown command "accounts delete"; "accounts" takes: create, topup, rate-limit');
    expect(await stderr(['keys', 'list', '--login', 'ops', 'now'])).toBe('1 unexpected argument "now" after "keys list"');
  }, 60_000);

  // Regression: a flag of another command was silently ignored: `keys list --login ops --balance 5`
  // listed the keys, `serve --login ops` started the server, `accounts topup --balance 5` said
  // "--amount is required" without a word about --balance.
  it('refuses a flag the command does not take, naming the flag and the command, before anything runs', async () => {
    const stderr = stderrOn('flags.db');
    expect(await stderr(['keys', 'list', '--login', 'ops', '--balance', '5'])).toBe(
      '1 --balance is not an option of "keys list", which takes --login',
    );
    expect(await stderr(['serve', '--login', 'ops'])).toBe('1 --login is not an option of "serve", which takes --role');
    expect(await stderr(['tokens', 'rotate', '--kid', 'k1'])).toBe('1 --kid is not an option of "tokens rotate", which takes none');
    // One no command takes: Node's "Unknown option '--since'. To specify a positional argument ..." named no command.
    expect(await stderr(['keys', 'list', '--login', 'ops', '--since', 'monday'])).toBe(
      '1 --since is not an option of "keys list", which takes --login',
    );
    expect(await stderr(['accounts', 'topup', '--login', 'ops', '--balance', '5'])).toBe(
      '1 --balance is not an option of "accounts topup", which takes --login, --amount',
    );
  }, 60_000);

  it('lists every command with its flags in the usage', async () => {
    const { stdout } = await runCli(['--help']);
    expect(stdout).toMatch(/^ {2}accounts create --login L --password P \[--name N\] \[--balance 100\]$/m);
    expect(stdout).toMatch(/^ {2}serve \[--role all\|api\|worker\] +start the reference server/m);
    expect(stdout).toMatch(/^ {2}reachability clear --login L --phone P \[--channel C\] +forget them/m);
    expect(stdout).toMatch(/^ {2}tokens rotate +sign new tokens with a new key/m);
  }, 30_000);
});
