import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { MAX_FROM, MIN_PASSWORD_LENGTH, parseRateCard, SpillwayError } from '@spillway/core';
import type { RateLimit } from '@spillway/core';
import { distance } from '@spillway/core/adapter';
import { MIN_JWT_SECRET_LENGTH } from '@spillway/http';
import { readPlainAmount } from './plain-amount.ts';

const rate = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value, ctx): RateLimit => {
      const m = /^(\d+)\/(\d+)$/.exec(value.trim());
      if (!m || Number(m[1]) <= 0 || Number(m[2]) < Number(m[1])) {
        ctx.addIssue({ code: 'custom', message: `expected "perSecond/burst" with burst >= perSecond, got "${value}"` });
        return z.NEVER;
      }
      return { perSecond: Number(m[1]), burst: Number(m[2]) };
    });

const TRUE = ['true', '1', 'yes', 'on'];
const FALSE = ['false', '0', 'no', 'off'];

/**
 * A boolean variable: true/false, 1/0, yes/no or on/off in any case; empty or unset is `fallback`.
 * Anything else stops the start: `yes` read as false (or `maybe` as true) went unnoticed.
 */
const bool = (fallback: boolean) =>
  z
    .string()
    .optional()
    .transform((value, ctx): boolean => {
      const v = value?.trim().toLowerCase() ?? '';
      if (v === '') return fallback;
      if (TRUE.includes(v)) return true;
      if (FALSE.includes(v)) return false;
      ctx.addIssue({ code: 'custom', message: `expected true/false, 1/0, yes/no or on/off, got "${value}"` });
      return z.NEVER;
    });

/** Plain digits within the range, or an issue naming the range and the value. */
function wholeNumber(value: string, min: number, max: number | null, ctx: z.RefinementCtx): number {
  const n = /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (n >= min && (max === null || n <= max)) return n;
  ctx.addIssue({
    code: 'custom',
    message: `expected a whole number ${max === null ? `of ${min} or more` : `from ${min} to ${max}`}, got "${value}"`,
  });
  return z.NEVER;
}

/**
 * A whole number from `min` to `max` in plain digits, `fallback` when unset. `z.coerce` also read
 * "0x1F90" as 8080, "1e3" as 1000 and, before empty values were unset, "" as 0.
 */
const int = (min: number, max: number | null, fallback: number | (() => number)) =>
  z
    .string()
    .optional()
    .transform((value, ctx): number =>
      value === undefined ? (typeof fallback === 'function' ? fallback() : fallback) : wholeNumber(value, min, max, ctx),
    );

/** {@link int} without a default: undefined when unset. */
const optionalInt = (min: number, max: number | null) =>
  z
    .string()
    .optional()
    .transform((value, ctx): number | undefined => (value === undefined ? undefined : wholeNumber(value, min, max, ctx)));

/** One of `values`, in any case ("INFO" is "info"). */
const oneOf = <T extends string>(values: readonly [T, ...T[]], fallback: T) =>
  z
    .string()
    .optional()
    .transform((value, ctx): T => {
      if (value === undefined) return fallback;
      const found = values.find((v) => v === value.trim().toLowerCase());
      if (found) return found;
      ctx.addIssue({ code: 'custom', message: `expected one of ${values.join(', ')}, got "${value}"` });
      return z.NEVER;
    });

/**
 * An http(s) URL written out whole (`http:shop.example` is refused), the blanks around it dropped
 * (`z.url()` alone also took `ftp:` or `javascript:`).
 */
const httpUrl = () =>
  z.url({ protocol: /^https?$/, error: (issue) => `expected an http:// or https:// URL, got "${String(issue.input)}"` }).optional();

/** The reference server's configuration, read from the environment (see README, Configuration). */
export const configSchema = z.object({
  PORT: int(0, 65535, 8080),
  /** An address or a host name to listen on (empty was '' and listened on every interface). */
  HOST: z
    .string()
    .regex(
      /^([0-9A-Fa-f:.]+|[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*)$/,
      'expected an IP address or a host name',
    )
    .default('127.0.0.1'),
  SPILLWAY_DB: z.string().default('./data/spillway.db'),
  /**
   * How long a database call waits before giving up, ms: a request is then answered 503 with
   * `Retry-After`, a workers' round tried again. SQLite: for the file's write lock (taken by
   * another thread or process writing); 0 does not wait. PostgreSQL: for a lock (`lock_timeout`:
   * a row another process holds, as the account's row while its balance is charged) and for a
   * connection of the pool (each thread's holds 10); 0 waits without a bound. Migrations always
   * wait for each other.
   */
  SPILLWAY_DB_BUSY_TIMEOUT_MS: int(0, 600_000, 5000),
  /**
   * What this process runs: the HTTP API and the workers (`all`), the API only (`api`: accepts and
   * reads; workers elsewhere on the same database advance the messages), or the workers only.
   */
  SPILLWAY_ROLE: oneOf(['all', 'api', 'worker'], 'all'),
  /**
   * With the role `all`, run the workers on a worker thread of their own (not with an in-memory
   * database), so that a backlog never holds up the HTTP server's event loop.
   */
  SPILLWAY_WORKER_THREAD: bool(true),
  /**
   * Threads serving the HTTP API, each with its own database connection, all accepting from the
   * one port (not with an in-memory database, which threads cannot share, nor for the role
   * `worker`). Default: the machine's cores, at most 4.
   */
  SPILLWAY_HTTP_THREADS: int(1, 64, () => Math.min(availableParallelism(), 4)),
  /**
   * With the role `worker`, a port (on HOST) that serves `GET /metrics` and `GET /health`: a
   * workers-only process has no API port. Unset: none.
   */
  SPILLWAY_METRICS_PORT: optionalInt(0, 65535),
  /**
   * Stop when the command that started the server is gone (`npx pnpm start` killed by a SIGTERM
   * that its wrappers do not forward); `false` lets the server outlive it. Never watched under
   * `nohup` or when started by init.
   */
  SPILLWAY_EXIT_WITH_LAUNCHER: bool(true),
  /**
   * On SIGTERM or SIGINT, the whole stop's deadline, ms: requests held open, the round and the
   * sends in flight are waited for until then; what still runs is left to the next process (logged
   * at warn), and the process exits about `STOP_SETTLE_MS` (250 ms) after it.
   */
  SPILLWAY_SHUTDOWN_GRACE_MS: int(0, null, 10_000),
  /** Public origin of the server (short links); default: the address it listens on. */
  SPILLWAY_PUBLIC_URL: httpUrl(),
  /** A `postgres://` (or `postgresql://`) URL selects PostgreSQL; empty or unset, the SQLite file of SPILLWAY_DB. */
  DATABASE_URL: z
    .string()
    .refine((v) => v === '' || /^postgres(ql)?:\/\//.test(v), 'a postgres:// URL (unset, the SQLite file of SPILLWAY_DB is used)')
    .optional(),
  /** PostgreSQL schema of Spillway's tables (created if missing). */
  SPILLWAY_PG_SCHEMA: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, 'must be a plain identifier')
    .default('public'),
  SPILLWAY_BOOTSTRAP_LOGIN: z.string().optional(),
  /** The account rule (`MIN_PASSWORD_LENGTH`), checked here so that the error names the variable. */
  SPILLWAY_BOOTSTRAP_PASSWORD: z.string().min(MIN_PASSWORD_LENGTH, `at least ${MIN_PASSWORD_LENGTH} characters`).optional(),
  SPILLWAY_BOOTSTRAP_API_KEY: z.string().optional(),
  /** Comma-separated alpha-names, each of 1 to {@link MAX_FROM} characters (the longest a message's `from` takes). */
  SPILLWAY_BOOTSTRAP_ALPHA_NAMES: z
    .string()
    .superRefine((value, ctx) => {
      for (const name of value.split(',').map((n) => n.trim())) {
        if (name.length > MAX_FROM)
          ctx.addIssue({ code: 'custom', message: `an alpha-name has 1 to ${MAX_FROM} characters, got "${name}" (${name.length})` });
      }
    })
    .optional(),
  /** An amount in plain decimal digits, 0 or more (as the CLI's `--balance`). */
  SPILLWAY_BOOTSTRAP_BALANCE: z
    .string()
    .transform((value, ctx) => {
      const amount = readPlainAmount(value);
      if (amount !== null) return amount;
      ctx.addIssue({ code: 'custom', message: `expected an amount of 0 or more such as 100 or 12.50, got "${value}"` });
      return z.NEVER;
    })
    .optional(),
  SPILLWAY_RATE_MESSAGING: rate('100/150'),
  SPILLWAY_RATE_DATA: rate('50/75'),
  SPILLWAY_SIMULATOR_LATENCY_MS: int(0, null, 200),
  /** How long the reachability memory remembers a not-on-this-channel answer, seconds; 0 turns it off. */
  SPILLWAY_REACHABILITY_TTL: int(0, null, 604_800),
  SPILLWAY_ALLOW_PRIVATE_URLS: bool(false),
  /** The rate card, JSON: checked here, so that a bad one stops the start naming the variable and each bad path. */
  SPILLWAY_RATE_CARD: z
    .string()
    .superRefine((value, ctx) => {
      try {
        parseRateCard(value);
      } catch (error) {
        if (!(error instanceof SpillwayError)) throw error;
        for (const d of error.details ?? [{ path: '', message: error.message }]) {
          const at = d.path.replace(/^rateCard\.?/, '');
          ctx.addIssue({ code: 'custom', message: at ? `${at}: ${d.message}` : d.message });
        }
      }
    })
    .optional(),
  SPILLWAY_JWT_SECRET: z.string().min(MIN_JWT_SECRET_LENGTH, `at least ${MIN_JWT_SECRET_LENGTH} characters`).optional(),
  /** Channel drivers (`spillway.config.json` or a module): see README, Sending for real. Default: the simulator everywhere. */
  SPILLWAY_CONFIG: z.string().optional(),
  /** Standard Webhooks secret (`whsec_` + base64) that an upstream gateway signs `POST /gateway-callback` with. */
  SPILLWAY_GATEWAY_SECRET: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/=]{16,}$/, 'must be whsec_ followed by a base64 secret')
    .optional(),
  /** SMTP server of `POST /api/email/send` (`smtp://user:pass@host:587`, `smtps://...`); unset, e-mail is off. */
  SPILLWAY_SMTP_URL: z
    .string()
    .refine((v) => /^smtps?:\/\//.test(v) && URL.canParse(v) && new URL(v).hostname !== '', 'an smtp:// or smtps:// URL with a host')
    .optional(),
  /** The sender of those e-mails: an address, bare or `Name <address>` (a bad one failed every e-mail, not the start). */
  SPILLWAY_SMTP_FROM: z
    .string()
    .regex(/^([^<>]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/, 'expected an address, bare or as Name <address>')
    .default('Spillway <no-reply@localhost>'),
  /** Social platform endpoints (see README, Social platform). */
  SPILLWAY_SOCIAL_VERIFY_TOKEN: z.string().optional(),
  SPILLWAY_SOCIAL_APP_SECRET: z.string().optional(),
  SPILLWAY_SOCIAL_CLIENT_ID: z.string().optional(),
  SPILLWAY_SOCIAL_AUTHORIZE_URL: httpUrl(),
  SPILLWAY_SOCIAL_TOKEN_URL: httpUrl(),
  SPILLWAY_SOCIAL_REDIRECT_URI: httpUrl(),
  SPILLWAY_SOCIAL_GRAPH_URL: httpUrl(),
  SPILLWAY_SOCIAL_TOKEN_KEY: z
    .string()
    .refine((v) => /^[0-9a-fA-F]{64}$/.test(v) || Buffer.from(v, 'base64').length === 32, '32 bytes as 64 hex digits or base64')
    .optional(),
  /** Key of the operator routes (`/admin/...`, header X-Admin-Key); unset, they answer 403. */
  SPILLWAY_ADMIN_KEY: z.string().min(16, 'at least 16 characters').optional(),
  SPILLWAY_LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
});

export type ServerConfig = z.infer<typeof configSchema>;

const KNOWN = Object.keys(configSchema.shape);
/** Names a user may prefix by habit: `SPILLWAY_PORT` is `PORT`. */
const ALIASES: Record<string, string> = { SPILLWAY_PORT: 'PORT', SPILLWAY_HOST: 'HOST', SPILLWAY_DATABASE_URL: 'DATABASE_URL' };
/** The values that are not repeated in an error message: secrets, and the rate card (a JSON document). */
const NOT_SHOWN = /PASSWORD|API_KEY|SECRET|TOKEN|ADMIN_KEY|DATABASE_URL|SMTP_URL|RATE_CARD/;

/** The suffix of a unit, as one name may have it and a misspelling of it not. */
const UNIT = /^_(MS|MILLISECONDS|S|SEC|SECS|SECONDS|MINUTES|HOURS|DAYS)$/;

/**
 * The variable a `SPILLWAY_*` name that is none was probably meant to be (`SPILLWAY_WORKER_THREADS`,
 * `SPILLWAY_DATABSE_URL`, `SPILLWAY_SHUTDOWN_GRACE`), or null for a name of its own (the tests'
 * `SPILLWAY_TEST_STORAGE`, a driver secret read with `env:`).
 */
function meantInstead(name: string): string | null {
  const candidates = [...KNOWN.filter((k) => k.startsWith('SPILLWAY_')), ...Object.keys(ALIASES)];
  let best: { name: string; d: number } | null = null;
  for (const known of candidates) {
    const suffix = known.length - 'SPILLWAY_'.length;
    const d = distance(name, known);
    // A unit left out or added (`_MS`, `_SECONDS`) is a slip too; another suffix makes a name of the
    // user's own (`SPILLWAY_DB_PASSWORD`, a driver secret read with `env:`).
    const close =
      d <= (suffix >= 8 ? 2 : 1) ||
      (name.startsWith(known) && UNIT.test(name.slice(known.length))) ||
      (known.startsWith(name) && UNIT.test(known.slice(name.length)));
    if (close && (!best || d < best.d)) best = { name: ALIASES[known] ?? known, d };
  }
  return best?.name ?? null;
}

/**
 * Reads the configuration; a bad value stops the server with every problem named. An empty
 * variable is an unset one (its default): `PORT=` picked a random port, `HOST=` listened on every
 * interface, `SPILLWAY_DB=` ran on a throwaway file. A `SPILLWAY_*` variable that is none of
 * these but close to one is refused, naming the one it resembles: it was silently ignored.
 */
export function readConfig(env: Record<string, string | undefined> = process.env): ServerConfig {
  const problems: string[] = [];
  const given: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (KNOWN.includes(name)) {
      if (value.trim() !== '') given[name] = value;
    } else if (name.startsWith('SPILLWAY_')) {
      const meant = meantInstead(name);
      if (meant) problems.push(`${name}: not a Spillway variable; did you mean ${meant}?`);
    }
  }
  const parsed = configSchema.safeParse(given);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const name = String(issue.path[0] ?? '');
      const value = given[name];
      // zod's own messages do not say what they were given; custom ones already do.
      const shown = value !== undefined && !NOT_SHOWN.test(name) && !issue.message.includes('got "') ? ` (got "${value}")` : '';
      problems.push(`${issue.path.join('.')}: ${issue.message}${shown}`);
    }
  }
  const config = parsed.data;
  if (given['SPILLWAY_BOOTSTRAP_LOGIN'] === undefined) {
    const orphans = [
      'SPILLWAY_BOOTSTRAP_PASSWORD',
      'SPILLWAY_BOOTSTRAP_API_KEY',
      'SPILLWAY_BOOTSTRAP_ALPHA_NAMES',
      'SPILLWAY_BOOTSTRAP_BALANCE',
    ].filter((name) => given[name] !== undefined);
    for (const name of orphans) problems.push(`${name}: set without SPILLWAY_BOOTSTRAP_LOGIN, the account it is for`);
  } else if (given['SPILLWAY_BOOTSTRAP_PASSWORD'] === undefined) {
    problems.push('SPILLWAY_BOOTSTRAP_PASSWORD: required with SPILLWAY_BOOTSTRAP_LOGIN');
  }
  if (problems.length > 0 || !config) throw new Error(`invalid configuration:\n  ${problems.join('\n  ')}`);
  return config;
}
