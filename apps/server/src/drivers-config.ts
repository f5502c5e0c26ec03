import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { CHANNELS, isPhoneCountry } from '@spillway/core';
import type { ChannelDriver, ChannelId } from '@spillway/core';
import { distance } from '@spillway/core/adapter';
import { ownedByAccount } from './account-channels.ts';
import {
  createFailoverDriver,
  createKannelDriver,
  createSimulator,
  createSmppDriver,
  createTelegramDriver,
  createViberDriver,
  createWebhookDriver,
} from '@spillway/channels';

/** A secret: the value itself, or `env:NAME` to read it from the environment at start. */
const secret = z.string().min(1);
/** The country an MO's sender in national format is read in (`0151…` becomes `49151…`). */
const country = z.string().refine(isPhoneCountry, 'an ISO 3166 alpha-2 country code, such as DE');

const kannel = z.strictObject({
  type: z.literal('kannel'),
  sendsmsUrl: z.url(),
  username: z.string().min(1),
  password: secret,
  callbackBaseUrl: z.url().optional(),
  callbackSecret: secret.optional(),
  dlrMask: z.number().int().min(1).max(31).optional(),
  smsc: z.string().optional(),
  timeoutMs: z.number().int().positive().optional(),
  country: country.optional(),
});

const smpp = z.strictObject({
  type: z.literal('smpp'),
  host: z.string().min(1),
  port: z.number().int().min(1).max(65535).default(2775),
  tls: z.boolean().optional(),
  systemId: z.string().min(1).max(16),
  password: secret,
  systemType: z.string().max(13).optional(),
  concatenation: z.enum(['udh', 'sar', 'payload']).optional(),
  window: z.number().int().positive().optional(),
  segmentsPerSecond: z.number().positive().optional(),
  enquireLinkMs: z.number().int().positive().optional(),
  responseTimeoutMs: z.number().int().positive().optional(),
  reconnect: z
    .strictObject({ initialMs: z.number().int().positive().optional(), maxMs: z.number().int().positive().optional() })
    .optional(),
  throttleRetryAfterSeconds: z.number().int().positive().optional(),
  /** false: no validity_period from the attempt's ttl (an SMSC that refuses relative times). */
  validityPeriod: z.boolean().optional(),
  /** How long after its latest new part an incomplete long MO is given up (delivered with its gaps marked). */
  moPartsTimeoutMs: z.number().int().positive().optional(),
  /** National senders (TON 2, or TON 0 with a leading 0) are read in it; TON 1 and 5 are kept. */
  country: country.optional(),
  /** Kannel's msg-id-type: bit 0 submit_sm_resp ids in hex, bit 1 receipt text ids in hex. */
  msgIdType: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]).optional(),
  /** Vendor command_status codes (decimal or 0x hex keys) mapped to failure classes. */
  errorClasses: z
    .record(z.string().regex(/^(0x[0-9a-fA-F]+|\d+)$/), z.enum(['throttled', 'temporary', 'not_on_channel', 'undeliverable', 'permanent']))
    .optional(),
});

const webhook = z.strictObject({
  type: z.literal('webhook'),
  url: z.url(),
  secret: secret.refine((s) => s.startsWith('whsec_') || s.startsWith('env:'), 'a Standard Webhooks secret starts with whsec_'),
  receiptSecret: secret.optional(),
  callbackBaseUrl: z.url().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  timeoutMs: z.number().int().positive().optional(),
});

const telegram = z.strictObject({
  type: z.literal('telegram'),
  apiUrl: z.url().optional(),
  /** For attempts without the client's own token (X-Tg-Bot-Key). */
  botToken: secret.optional(),
  timeoutMs: z.number().int().positive().optional(),
});

const viber = z.strictObject({
  type: z.literal('viber'),
  apiUrl: z.url().optional(),
  /** For attempts without the client's own token (X-Viber-Auth-Token). */
  botToken: secret.optional(),
  /** Tokens of client bots whose webhooks point at this server (their callbacks are verified with them). */
  callbackTokens: z.array(secret).optional(),
  timeoutMs: z.number().int().positive().optional(),
});

const simulator = z.strictObject({ type: z.literal('simulator'), latencyMs: z.number().int().min(0).optional() });

const driverSchema = z.discriminatedUnion('type', [kannel, smpp, webhook, telegram, viber, simulator]);
const channelId = z.enum(CHANNELS);

const driverName = z.string().regex(/^[a-z][a-z0-9-]*$/, 'driver names are lower-case letters, digits and dashes');
const driversRecord = z.record(driverName, driverSchema);
/** Which drivers serve each channel: one name, or several in failover order (with the breaker's options). */
const channelsRecord = z.partialRecord(
  channelId,
  z.union([
    z.array(z.string()).min(1),
    z.strictObject({
      drivers: z.array(z.string()).min(1),
      consecutiveFailures: z.number().int().positive().optional(),
      halfOpenAfterMs: z.number().int().positive().optional(),
    }),
  ]),
);
type ChannelsRecord = z.infer<typeof channelsRecord>;
type ChannelEntry = NonNullable<ChannelsRecord[ChannelId]>;
const namesOf = (entry: ChannelEntry | undefined): string[] => (Array.isArray(entry) ? entry : (entry?.drivers ?? []));

/** An account's own drivers: the same driver schemas and channel syntax as the server-wide ones. */
const accountSchema = z.strictObject({ drivers: driversRecord, channels: channelsRecord });

/** Every channel entry names a driver of `drivers` (the section's own: an account's or the server's). */
function checkChannels(
  section: { drivers: Record<string, unknown>; channels: ChannelsRecord },
  at: (string | number)[],
  ctx: z.RefinementCtx,
): void {
  const where = at.length ? `${at.join('.')}.drivers` : 'drivers';
  for (const [channel, entry] of Object.entries(section.channels)) {
    for (const [i, n] of namesOf(entry).entries()) {
      if (!section.drivers[n]) {
        ctx.addIssue({
          code: 'custom',
          path: [...at, 'channels', channel, ...(Array.isArray(entry) ? [] : ['drivers']), i],
          message: `no driver named "${n}" in ${where}`,
        });
      }
    }
  }
}

/**
 * `SPILLWAY_CONFIG`: named drivers, and which of them serve each channel, in failover order; and,
 * under `accounts` (by login), an account's own drivers for the channels they override. Driver
 * names are unique across the whole file: receipts are matched to attempts by driver name, and a
 * driver's callbacks are mounted under `/channels/{name}`.
 */
export const driversConfigSchema = z
  .strictObject({
    drivers: driversRecord,
    channels: channelsRecord,
    accounts: z.record(z.string().min(1, 'an account login'), accountSchema).optional(),
  })
  .superRefine((config, ctx) => {
    checkChannels(config, [], ctx);
    const owner = new Map<string, string>(Object.keys(config.drivers).map((n) => [n, `drivers.${n}`]));
    for (const [login, account] of Object.entries(config.accounts ?? {})) {
      checkChannels(account, ['accounts', login], ctx);
      for (const n of Object.keys(account.drivers)) {
        const taken = owner.get(n);
        if (taken) {
          ctx.addIssue({
            code: 'custom',
            path: ['accounts', login, 'drivers', n],
            message: `the driver name "${n}" is already used by ${taken}: driver names are unique across the file`,
          });
        } else {
          owner.set(n, `accounts.${login}.drivers.${n}`);
        }
      }
    }
  });

export type DriversConfig = z.infer<typeof driversConfigSchema>;

/** Reads and validates the file named by `SPILLWAY_CONFIG` (`.json`, or a module exporting the object by default). */
export async function loadDriversConfig(file: string): Promise<DriversConfig> {
  const path = resolve(file);
  let raw: unknown;
  try {
    raw = path.endsWith('.json')
      ? JSON.parse(readFileSync(path, 'utf8'))
      : ((await import(pathToFileURL(path).href)) as { default: unknown }).default;
  } catch (error) {
    throw new Error(`SPILLWAY_CONFIG: cannot read ${file}: ${(error as Error).message}`);
  }
  return parseDriversConfig(raw, file);
}

const DRIVER_KEYS: Record<string, readonly string[]> = Object.fromEntries(
  [kannel, smpp, webhook, telegram, viber, simulator].map((s) => [s.shape.type.value, Object.keys(s.shape)]),
);

/**
 * The keys the object at `path` of the file may have, for a key it has that is none of them:
 * a driver's by its `type`, a channel entry's, the channels, an account's or the file's own.
 */
function keysAt(raw: unknown, path: readonly PropertyKey[]): readonly string[] {
  let at: unknown = raw;
  for (const key of path) at = at !== null && typeof at === 'object' ? (at as Record<PropertyKey, unknown>)[key] : undefined;
  const type = at !== null && typeof at === 'object' ? (at as { type?: unknown }).type : undefined;
  if (typeof type === 'string' && DRIVER_KEYS[type]) return DRIVER_KEYS[type];
  const last = path[path.length - 1];
  if (last === 'channels') return CHANNELS;
  if (path[path.length - 2] === 'channels') return ['drivers', 'consecutiveFailures', 'halfOpenAfterMs'];
  if (last === 'reconnect') return ['initialMs', 'maxMs'];
  if (path.length === 2 && path[0] === 'accounts') return Object.keys(accountSchema.shape);
  if (path.length === 0) return Object.keys(driversConfigSchema.shape);
  return [];
}

/** What an unknown key was probably meant to be (`sytemId`: `systemId`, `SMS`: `sms`), or undefined. */
function meant(key: string, known: readonly string[]): string | undefined {
  let best: { key: string; d: number } | undefined;
  for (const k of known) {
    const d = k.toLowerCase() === key.toLowerCase() ? 0 : distance(key, k);
    if (d <= (k.length >= 6 ? 2 : 1) && (!best || d < best.d)) best = { key: k, d };
  }
  return best?.key;
}

/** Validates a drivers configuration; a bad one throws with every problem and its path named. */
export function parseDriversConfig(raw: unknown, source = 'SPILLWAY_CONFIG'): DriversConfig {
  const parsed = driversConfigSchema.safeParse(raw);
  if (!parsed.success) {
    // An unknown key is told what it was probably meant to be, and the channels are listed.
    const unknownKeys = (i: z.core.$ZodIssueUnrecognizedKeys): string => {
      const known = keysAt(raw, i.path);
      const hints = i.keys.flatMap((key) => {
        const m = meant(key, known);
        return m ? [i.keys.length === 1 ? `did you mean "${m}"?` : `"${key}": did you mean "${m}"?`] : [];
      });
      const told = hints.length > 0 ? ` (${hints.join('; ')})` : '';
      const channels = i.path[i.path.length - 1] === 'channels' ? `; the channels are ${CHANNELS.join(', ')}` : '';
      return `${i.message}${told}${channels}`;
    };
    // A bad record key (a driver's name) carries its reason in nested issues: name it.
    const reason = (i: z.core.$ZodIssue): string =>
      i.code === 'invalid_key'
        ? `${i.issues.map((inner) => inner.message).join('; ')}`
        : i.code === 'unrecognized_keys'
          ? unknownKeys(i)
          : i.message;
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${reason(i)}`).join('\n  ');
    throw new Error(`invalid ${source}:\n  ${problems}`);
  }
  return parsed.data;
}

export interface BuiltDrivers {
  /** What the engine is given: one driver per configured channel (a failover for several). */
  channels: ChannelDriver[];
  /**
   * Every concrete driver, accounts' included, whose routes are mounted under `/channels/{name}`
   * and which `drivers check` pings.
   */
  all: ChannelDriver[];
  /** Channels the configuration leaves to the simulator. */
  unconfigured: ChannelId[];
  /** Accounts' own drivers by login, as the engine is given them: one per channel the account overrides. */
  accounts: Map<string, ChannelDriver[]>;
  /** The login of the account that owns each account driver, by driver name (server-wide drivers are absent). */
  ownerOf: Map<string, string>;
}

type Section = { drivers: Record<string, z.infer<typeof driverSchema>>; channels: ChannelsRecord };

/**
 * Creates the drivers of a configuration. `env:NAME` values are read from `env`; a missing one is
 * an error naming it. `publicUrl` is the default callback origin (read when a send needs it).
 * `accountIdOf` (a login's account id) sends what an account's drivers receive to that account.
 */
export function buildDrivers(
  config: DriversConfig,
  env: Record<string, string | undefined>,
  publicUrl: () => string,
  accountIdOf?: (login: string) => Promise<number | undefined>,
): BuiltDrivers {
  const missing: string[] = [];
  const value = (v: string): string => {
    if (!v.startsWith('env:')) return v;
    const name = v.slice(4);
    const found = env[name];
    if (found === undefined || found === '') missing.push(name);
    return found ?? '';
  };
  const all: ChannelDriver[] = [];

  /** The concrete drivers a section uses, and what the engine gets for each of its channels. */
  function build(section: Section, failoverName: (channel: ChannelId) => string, login?: string): ChannelDriver[] {
    const entries = Object.entries(section.channels) as [ChannelId, ChannelEntry | undefined][];
    const servedBy = new Map<string, ChannelId[]>();
    for (const [channel, entry] of entries) for (const n of namesOf(entry)) servedBy.set(n, [...(servedBy.get(n) ?? []), channel]);
    const instances = new Map<string, ChannelDriver>();
    for (const [name, d] of Object.entries(section.drivers)) {
      const channels = servedBy.get(name);
      if (!channels) continue; // declared but unused
      const driver = create(name, d, channels);
      instances.set(name, login !== undefined && accountIdOf ? ownedByAccount(driver, () => accountIdOf(login)) : driver);
    }
    all.push(...instances.values());
    const channelDrivers: ChannelDriver[] = [];
    for (const [channel, entry] of entries) {
      const members = namesOf(entry).map((n) => instances.get(n)!);
      if (members.length === 1) {
        const only = members[0]!;
        // A driver serving several channels is handed to the engine as a view of this channel alone,
        // so that it never overrides another channel's failover.
        channelDrivers.push(only.channels.length === 1 ? only : { ...only, channels: [channel] });
        continue;
      }
      const opts: { consecutiveFailures?: number | undefined; halfOpenAfterMs?: number | undefined } =
        Array.isArray(entry) || !entry ? {} : entry;
      channelDrivers.push(
        createFailoverDriver({
          name: failoverName(channel),
          channels: [channel],
          drivers: members,
          ...(opts.consecutiveFailures ? { consecutiveFailures: opts.consecutiveFailures } : {}),
          ...(opts.halfOpenAfterMs ? { halfOpenAfterMs: opts.halfOpenAfterMs } : {}),
        }),
      );
    }
    return channelDrivers;
  }

  function create(name: string, d: z.infer<typeof driverSchema>, channels: ChannelId[]): ChannelDriver {
    switch (d.type) {
      case 'kannel':
        return createKannelDriver({
          ...d,
          name,
          channels,
          password: value(d.password),
          ...(d.callbackSecret ? { callbackSecret: value(d.callbackSecret) } : {}),
          callbackBaseUrl: d.callbackBaseUrl ?? publicUrl,
        });
      case 'smpp': {
        const errorClasses = Object.fromEntries(Object.entries(d.errorClasses ?? {}).map(([k, v]) => [Number(k), v]));
        return createSmppDriver({ ...d, name, channels, password: value(d.password), errorClasses });
      }
      case 'webhook':
        return createWebhookDriver({
          ...d,
          name,
          channels,
          secret: value(d.secret),
          ...(d.headers ? { headers: Object.fromEntries(Object.entries(d.headers).map(([k, v]) => [k, value(v)])) } : {}),
          ...(d.receiptSecret ? { receiptSecret: value(d.receiptSecret) } : {}),
          callbackBaseUrl: d.callbackBaseUrl ?? publicUrl,
        });
      case 'telegram':
        return { ...createTelegramDriver({ ...d, name, ...(d.botToken ? { botToken: value(d.botToken) } : {}) }), channels };
      case 'viber':
        return {
          ...createViberDriver({
            ...d,
            name,
            ...(d.botToken ? { botToken: value(d.botToken) } : {}),
            ...(d.callbackTokens ? { callbackTokens: d.callbackTokens.map(value) } : {}),
          }),
          channels,
        };
      case 'simulator':
        return { ...createSimulator({ channels, ...(d.latencyMs !== undefined ? { latencyMs: d.latencyMs } : {}) }), name };
    }
  }

  const channels = build(config, (channel) => `${channel}-failover`);
  const accounts = new Map<string, ChannelDriver[]>();
  const ownerOf = new Map<string, string>();
  for (const [login, section] of Object.entries(config.accounts ?? {})) {
    const before = all.length;
    // `@` never appears in a configured name: an account's failover never takes another driver's name.
    accounts.set(
      login,
      build(section, (channel) => `${channel}-failover@${login}`, login),
    );
    for (const d of all.slice(before)) ownerOf.set(d.name, login);
  }
  if (missing.length) throw new Error(`SPILLWAY_CONFIG names environment variables that are not set: ${[...new Set(missing)].join(', ')}`);
  const configured = new Set(Object.keys(config.channels));
  return { channels, all, unconfigured: CHANNELS.filter((c) => !configured.has(c)), accounts, ownerOf };
}
