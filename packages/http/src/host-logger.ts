import type { HttpLogger } from './env.ts';

type Log = (...args: unknown[]) => void;

/**
 * The logger a host hands in, as Spillway calls it (`logger.error(message, meta)`). pino (and so
 * Fastify's `fastify.log`) and bunyan take the fields first, `logger.error(meta, message)`: called
 * the other way round they print the message and silently drop the fields, the error and its stack
 * included. Such a logger is recognised (a `child()` and pino's `bindings()` or bunyan's `fields`)
 * and called fields first; any other (`console`, winston, ...) is used as it is.
 */
export function adaptLogger(logger: HttpLogger): HttpLogger {
  const candidate = logger as unknown as { child?: unknown; bindings?: unknown; fields?: unknown };
  const fieldsFirst =
    typeof candidate.child === 'function' &&
    (typeof candidate.bindings === 'function' || (typeof candidate.fields === 'object' && candidate.fields !== null));
  if (!fieldsFirst) return logger;
  const at = (level: 'info' | 'warn' | 'error') => {
    const log = (logger[level] as Log).bind(logger);
    return (message: string, meta?: Record<string, unknown>) => log(meta ?? {}, message);
  };
  return { info: at('info'), warn: at('warn'), error: at('error') };
}
