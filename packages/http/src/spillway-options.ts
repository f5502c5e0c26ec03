import { MIN_JWT_SECRET_LENGTH } from './chat-hub/token-service.ts';
import type { ChannelDriver } from '@spillway/core';
import type { SpillwayOptions } from './spillway.ts';

/** What a value is, for an error message: `a string ("./shop.db")`, `a function`, `undefined`. */
function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'string') return `a string (${JSON.stringify(value)})`;
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

const hasFunctions = (value: unknown, names: readonly string[]): boolean =>
  typeof value === 'object' && value !== null && names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function');

/**
 * Refuses options that cannot work, naming the option, when `createSpillway` is called: they
 * failed later as "options.channels is not iterable", "storage.migrate is not a function" at
 * `start()`, "registry.getSingleMetric is not a function", or not at all (a `publicUrl` that is
 * not a URL went into every short link).
 */
export function checkOptions(options: SpillwayOptions | undefined): void {
  const fail = (message: string): never => {
    throw new TypeError(`createSpillway: ${message}`);
  };
  if (typeof options !== 'object' || options === null) fail(`expected options { storage, channels, ... }, got ${describe(options)}`);
  const o = options!;
  if (!hasFunctions(o.storage, ['migrate', 'close'])) {
    fail(
      `storage must be a storage adapter (createSqliteStorage({ filename }) or createPostgresStorage({ connectionString })), got ${describe(o.storage)}`,
    );
  }
  if (!Array.isArray(o.channels)) {
    fail(`channels must be an array of channel drivers ([createSimulator()] or your providers' drivers), got ${describe(o.channels)}`);
  }
  // Empty, every send would be accepted, charged and then fail not_on_channel. It has two uses: a
  // process that only accepts, its workers elsewhere on the database, and accounts that all bring
  // drivers of their own.
  if (o.channels.length === 0 && o.workers !== false && o.engine?.accountChannels === undefined) {
    fail(
      "channels is empty, so every send would fail not_on_channel: give at least one channel driver ([createSimulator()] or your providers' drivers), " +
        'or workers: false for a process that leaves the sending to another',
    );
  }
  o.channels.forEach((driver: unknown, i) => {
    const d = driver as Partial<ChannelDriver> | null;
    if (typeof d !== 'object' || d === null || typeof d.name !== 'string' || !Array.isArray(d.channels) || typeof d.send !== 'function') {
      const hint = typeof driver === 'function' ? ' (a factory not called? createSimulator() rather than createSimulator)' : '';
      fail(`channels[${i}] must be a channel driver with a name, its channels and send()${hint}, got ${describe(driver)}`);
    }
  });
  for (const flag of ['docs', 'sandbox', 'workers', 'allowPrivateUrls'] as const) {
    if (o[flag] !== undefined && typeof o[flag] !== 'boolean') fail(`${flag} must be true or false, got ${describe(o[flag])}`);
  }
  const { metrics } = o;
  if (metrics !== undefined && typeof metrics !== 'boolean') {
    if (typeof metrics !== 'object' || metrics === null)
      fail(`metrics must be true, false or { registry, endpoint }, got ${describe(metrics)}`);
    if (metrics.registry !== undefined && !hasFunctions(metrics.registry, ['getSingleMetric', 'registerMetric', 'metrics'])) {
      fail(
        `metrics.registry must be a prom-client Registry (prom-client's \`register\` or a new Registry()), got ${describe(metrics.registry)}`,
      );
    }
  }
  const { chatHub } = o;
  if (typeof chatHub === 'object' && chatHub !== null && chatHub.jwtSecret !== undefined) {
    if (typeof chatHub.jwtSecret !== 'string' || chatHub.jwtSecret.length < MIN_JWT_SECRET_LENGTH) {
      fail(
        `chatHub.jwtSecret must be a string of at least ${MIN_JWT_SECRET_LENGTH} characters, got ${typeof chatHub.jwtSecret === 'string' ? `${chatHub.jwtSecret.length} characters` : describe(chatHub.jwtSecret)}`,
      );
    }
  }
  if (typeof o.publicUrl === 'string') {
    let url: URL | null = null;
    try {
      url = new URL(o.publicUrl);
    } catch {
      // refused below
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      fail(`publicUrl must be an http(s) URL such as 'https://shop.example/spillway', got ${JSON.stringify(o.publicUrl)}`);
    }
  } else if (o.publicUrl !== undefined && typeof o.publicUrl !== 'function') {
    fail(`publicUrl must be a URL or a function answering one, got ${describe(o.publicUrl)}`);
  }
  if (o.logger !== undefined && !hasFunctions(o.logger, ['info', 'warn', 'error'])) {
    fail(`logger must have info, warn and error (console, a pino logger, ...), got ${describe(o.logger)}`);
  }
}
