import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { CreateServerOptions } from '../../apps/server/src/create-server.ts';

// The server's own pino (the tests' root has none of its own).
const pino = createRequire(join(import.meta.dirname, '../../apps/server/package.json'))('pino') as (
  options: { level: string },
  stream: { write(line: string): void },
) => NonNullable<CreateServerOptions['logger']>;

/** pino's levels, as the lines carry them. */
export const INFO = 30;
export const WARN = 40;

/** One line of the server's log: pino's JSON, `level` a number (`INFO`, `WARN`). */
export type LogLine = { level: number; msg: string } & Record<string, unknown>;

/**
 * A real pino logger whose lines, from `info` up, are kept in `lines`: for the reference server
 * (`createServer(config, { logger })`) and for an embedding host's (`createSpillway({ logger })`).
 */
export function capturedLog(): { logger: NonNullable<CreateServerOptions['logger']>; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = pino({ level: 'info' }, { write: (line) => void lines.push(JSON.parse(line) as LogLine) });
  return { logger, lines };
}
