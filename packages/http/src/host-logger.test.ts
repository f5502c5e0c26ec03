import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import type { Env, HttpLogger } from './env.ts';
import { adaptLogger } from './host-logger.ts';
import { createErrorHandler } from './error-handler.ts';

type PinoLogger = HttpLogger & { child(bindings: Record<string, unknown>): PinoLogger };
type Pino = (options: { level?: string }, stream: Writable) => PinoLogger;

// The real pino (the reference server's dependency): Fastify's `fastify.log` is one.
const pino = createRequire(resolve(import.meta.dirname, '../../../apps/server/package.json'))('pino') as Pino;

function pinoLines(): { logger: PinoLogger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines };
}

describe('adaptLogger', () => {
  // Regression: handed pino (or `fastify.log`), every Spillway log line kept its message and lost
  // its fields: "unhandled error in request" without the error or its stack.
  it('keeps the fields of a pino logger, which takes them first', async () => {
    const { logger, lines } = pinoLines();
    const app = new Hono<Env>();
    app.get('/boom', () => {
      throw new Error('the database fell over');
    });
    app.onError(createErrorHandler(adaptLogger(logger)));
    expect((await app.request('/boom')).status).toBe(500);
    await new Promise((r) => setImmediate(r));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 50, msg: 'unhandled error in request' });
    expect(JSON.stringify(lines[0])).toContain('the database fell over');
  });

  it('keeps a pino child logger and the info and warn levels', async () => {
    const { logger, lines } = pinoLines();
    const adapted = adaptLogger(logger.child({ component: 'spillway' }));
    adapted.info('started', { workers: 2 });
    adapted.warn('database busy: the workers try again');
    await new Promise((r) => setImmediate(r));
    expect(lines).toMatchObject([
      { level: 30, msg: 'started', workers: 2, component: 'spillway' },
      { level: 40, msg: 'database busy: the workers try again' },
    ]);
  });

  it('leaves a message-first logger (console and the like) as it is', () => {
    const calls: unknown[][] = [];
    const logger = { info: (...a: unknown[]) => calls.push(a), warn: () => {}, error: () => {} };
    expect(adaptLogger(logger)).toBe(logger);
    expect(adaptLogger(console)).toBe(console);
  });
});
