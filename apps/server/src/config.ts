import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { parseRateCard, SpillwayError } from '@spillway/core';
import type { RateLimit } from '@spillway/core';

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

/** The reference server's configuration, read from the environment (see README, Configuration). */
export const configSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('127.0.0.1'),
  SPILLWAY_DB: z.string().default('./data/spillway.db'),
  /**
   * SQLite: how long a write waits for the file's write lock (taken by another thread or process
   * writing) before giving up, ms: a request is then answered 503 with `Retry-After`, a workers'
   * round tried again.
   */
  SPILLWAY_DB_BUSY_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(5000),
  /**
   * What this process runs: the HTTP API and the workers (`all`), the API only (`api`: accepts and
   * reads; workers elsewhere on the same database advance the messages), or the workers only.
   */
  SPILLWAY_ROLE: z.enum(['all', 'api', 'worker']).default('all'),
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
  SPILLWAY_HTTP_THREADS: z.coerce
    .number()
    .int()
    .min(1)
    .max(64)
    .default(() => Math.min(availableParallelism(), 4)),
  /**
   * With the role `worker`, a port (on HOST) that serves `GET /metrics` and `GET /health`: a
   * workers-only process has no API port. Unset: none.
   */
  SPILLWAY_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** On SIGTERM, how long to wait for sends in flight before exiting, ms. */
  SPILLWAY_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
  /** Public origin of the server (short links); default: the address it listens on. */
  SPILLWAY_PUBLIC_URL: z.url().optional(),
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
  SPILLWAY_BOOTSTRAP_PASSWORD: z.string().optional(),
  SPILLWAY_BOOTSTRAP_API_KEY: z.string().optional(),
  SPILLWAY_BOOTSTRAP_ALPHA_NAMES: z.string().optional(),
  SPILLWAY_BOOTSTRAP_BALANCE: z.coerce.number().nonnegative().optional(),
  SPILLWAY_RATE_MESSAGING: rate('100/150'),
  SPILLWAY_RATE_DATA: rate('50/75'),
  SPILLWAY_SIMULATOR_LATENCY_MS: z.coerce.number().int().min(0).default(200),
  /** How long the reachability memory remembers a not-on-this-channel answer, seconds; 0 turns it off. */
  SPILLWAY_REACHABILITY_TTL: z.coerce.number().int().min(0).default(604_800),
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
  SPILLWAY_JWT_SECRET: z.string().optional(),
  /** Channel drivers (`spillway.config.json` or a module): see README, Sending for real. Default: the simulator everywhere. */
  SPILLWAY_CONFIG: z.string().optional(),
  /** Standard Webhooks secret (`whsec_` + base64) that an upstream gateway signs `POST /gateway-callback` with. */
  SPILLWAY_GATEWAY_SECRET: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/=]{16,}$/, 'must be whsec_ followed by a base64 secret')
    .optional(),
  /** Key of the operator routes (`/admin/...`, header X-Admin-Key); unset, they answer 403. */
  /** SMTP server of `POST /api/email/send` (`smtp://user:pass@host:587`, `smtps://...`); unset, e-mail is off. */
  SPILLWAY_SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'an smtp:// or smtps:// URL')
    .optional(),
  SPILLWAY_SMTP_FROM: z.string().default('Spillway <no-reply@localhost>'),
  /** Social platform endpoints (see README, Social platform). */
  SPILLWAY_SOCIAL_VERIFY_TOKEN: z.string().optional(),
  SPILLWAY_SOCIAL_APP_SECRET: z.string().optional(),
  SPILLWAY_SOCIAL_CLIENT_ID: z.string().optional(),
  SPILLWAY_SOCIAL_AUTHORIZE_URL: z.url().optional(),
  SPILLWAY_SOCIAL_TOKEN_URL: z.url().optional(),
  SPILLWAY_SOCIAL_REDIRECT_URI: z.url().optional(),
  SPILLWAY_SOCIAL_GRAPH_URL: z.url().optional(),
  SPILLWAY_SOCIAL_TOKEN_KEY: z
    .string()
    .refine((v) => /^[0-9a-fA-F]{64}$/.test(v) || Buffer.from(v, 'base64').length === 32, '32 bytes as 64 hex digits or base64')
    .optional(),
  SPILLWAY_ADMIN_KEY: z.string().min(16, 'at least 16 characters').optional(),
  SPILLWAY_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type ServerConfig = z.infer<typeof configSchema>;

/** Reads the configuration; a bad value stops the server with every problem named. */
export function readConfig(env: Record<string, string | undefined> = process.env): ServerConfig {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('\n  ');
    throw new Error(`invalid configuration:\n  ${problems}`);
  }
  return parsed.data;
}
