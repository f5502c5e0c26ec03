import { z } from 'zod';
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

const bool = z
  .string()
  .optional()
  .transform((v) => v === 'true' || v === '1');

/** The reference server's configuration, read from the environment (see README, Configuration). */
export const configSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('127.0.0.1'),
  SPILLWAY_DB: z.string().default('./data/spillway.db'),
  /**
   * What this process runs: the HTTP API and the workers (`all`), the API only (`api`: accepts and
   * reads; workers elsewhere on the same database advance the messages), or the workers only.
   */
  SPILLWAY_ROLE: z.enum(['all', 'api', 'worker']).default('all'),
  /** On SIGTERM, how long to wait for sends in flight before exiting, ms. */
  SPILLWAY_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
  /** Public origin of the server (short links); default: the address it listens on. */
  SPILLWAY_PUBLIC_URL: z.url().optional(),
  DATABASE_URL: z.string().optional(),
  SPILLWAY_BOOTSTRAP_LOGIN: z.string().optional(),
  SPILLWAY_BOOTSTRAP_PASSWORD: z.string().optional(),
  SPILLWAY_BOOTSTRAP_API_KEY: z.string().optional(),
  SPILLWAY_BOOTSTRAP_ALPHA_NAMES: z.string().optional(),
  SPILLWAY_BOOTSTRAP_BALANCE: z.coerce.number().nonnegative().optional(),
  SPILLWAY_RATE_MESSAGING: rate('100/150'),
  SPILLWAY_RATE_DATA: rate('50/75'),
  SPILLWAY_SIMULATOR_LATENCY_MS: z.coerce.number().int().min(0).default(200),
  SPILLWAY_ALLOW_PRIVATE_URLS: bool,
  SPILLWAY_RATE_CARD: z.string().optional(),
  SPILLWAY_JWT_SECRET: z.string().optional(),
  /** Channel drivers (`spillway.config.json` or a module): see README, Sending for real. Default: the simulator everywhere. */
  SPILLWAY_CONFIG: z.string().optional(),
  /** Standard Webhooks secret (`whsec_` + base64) that an upstream gateway signs `POST /gateway-callback` with. */
  SPILLWAY_GATEWAY_SECRET: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/=]{16,}$/, 'must be whsec_ followed by a base64 secret')
    .optional(),
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
