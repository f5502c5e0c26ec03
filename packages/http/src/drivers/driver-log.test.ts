import { describe, expect, it } from 'vitest';
import { SpillwayError, createFakeClock } from '@spillway/core';
import type { InboundReport } from '@spillway/core';
import type { HttpLogger } from '../env.ts';
import { inboundRefusal } from './driver-events.ts';
import { REFUSAL_LOG_WINDOW_MS, createDriverLog } from './driver-log.ts';

function captured() {
  const lines: Array<{ level: string; message: string; meta: Record<string, unknown> }> = [];
  const at =
    (level: string) =>
    (message: string, meta: Record<string, unknown> = {}) =>
      void lines.push({ level, message, meta });
  const logger: HttpLogger = { info: at('info'), warn: at('warn'), error: at('error') };
  return { lines, logger };
}

const mo = (alphaName: string): InboundReport => ({ channel: 'sms', phoneNumber: '4915100000129', alphaName, text: 'hello?' });
const noOwner = (alphaName: string) => new SpillwayError('not_found', `no account owns the address "${alphaName}"`);

describe('the drivers log', () => {
  it('logs a refused incoming message once per address and driver a minute, counting those between', async () => {
    const clock = createFakeClock();
    const { lines, logger } = captured();
    const log = createDriverLog(logger, clock);
    const refuse = (alphaName: string, driver = 'smsc') =>
      log(inboundRefusal({ driver, message: mo(alphaName), error: noOwner(alphaName) }));

    refuse('Nobody');
    for (let i = 0; i < 29; i++) {
      await clock.advance(1_000);
      refuse('Nobody');
    }
    refuse('Other');
    refuse('Nobody', 'kannel');
    expect(lines.map((l) => [l.meta['driver'], l.meta['address'], l.meta['count']])).toEqual([
      ['smsc', 'Nobody', 1],
      ['smsc', 'Other', 1],
      ['kannel', 'Nobody', 1],
    ]);
    // A minute after the first line, the next refusal is logged with the count since it.
    await clock.advance(REFUSAL_LOG_WINDOW_MS - 29_000);
    refuse('Nobody');
    expect(lines.at(-1)).toEqual({
      level: 'warn',
      message: 'incoming message refused: no account owns its address',
      meta: {
        driver: 'smsc',
        channel: 'sms',
        address: 'Nobody',
        reason: 'no_owner',
        error: 'no account owns the address "Nobody"',
        count: 30,
      },
    });
    // Never the sender's number.
    expect(JSON.stringify(lines)).not.toContain('4915100000129');
  });

  it('tells a refusal for several owners from a failure to store, at its level', () => {
    const { lines, logger } = captured();
    const log = createDriverLog(logger, createFakeClock());
    log(
      inboundRefusal({
        driver: 'smsc',
        message: mo('Shared'),
        error: new SpillwayError('conflict', '2 accounts own the address "Shared"'),
      }),
    );
    log(inboundRefusal({ driver: 'smsc', message: mo('Acme'), error: new Error('database is locked') }));
    expect(lines.map((l) => [l.level, l.message, l.meta['reason']])).toEqual([
      ['warn', 'incoming message refused: several accounts own its address', 'several_owners'],
      ['error', 'incoming message not taken: it could not be stored', 'failed'],
    ]);
  });

  // Regression: an MO refused as invalid was logged as an error "it could not be stored", as if the
  // database had failed, while the driver went on asking for it again.
  it('logs an incoming message dropped as invalid as a warning, with what is wrong with it, and never the number', () => {
    const { lines, logger } = captured();
    const log = createDriverLog(logger, createFakeClock());
    const invalid = new SpillwayError('validation_failed', 'Invalid incoming message', [
      { path: 'phoneNumber', message: 'not a valid phone number' },
    ]);
    log(inboundRefusal({ driver: 'smsc', message: { ...mo('Acme'), phoneNumber: '0012' }, error: invalid }));
    expect(lines).toEqual([
      {
        level: 'warn',
        message: 'incoming message dropped: it is invalid, and no retry of the provider can change that',
        meta: {
          driver: 'smsc',
          channel: 'sms',
          address: 'Acme',
          reason: 'invalid',
          error: 'Invalid incoming message: phoneNumber: not a valid phone number',
          count: 1,
        },
      },
    ]);
    expect(JSON.stringify(lines)).not.toContain('0012');
  });

  it('logs a link lost as a warning and back as info with how long it was down, and a breaker by its state', async () => {
    const clock = createFakeClock();
    const { lines, logger } = captured();
    const log = createDriverLog(logger, clock);
    const link = { type: 'link', driver: 'smsc', link: 'SMPP bind to 127.0.0.1:2775' } as const;
    log({ ...link, up: true, reason: 'bound' });
    log({ ...link, up: false, reason: 'connect ECONNREFUSED' });
    await clock.advance(42_000);
    log({ ...link, up: true, reason: 'bound' });
    const breaker = { type: 'breaker', driver: 'sms-failover', provider: 'smsc', channels: ['sms'], reason: 'why' } as const;
    log({ ...breaker, state: 'open' });
    log({ ...breaker, state: 'half-open' });
    log({ ...breaker, state: 'closed' });
    expect(lines.map((l) => [l.level, l.message])).toEqual([
      ['info', 'driver link up'],
      ['warn', 'driver link lost'],
      ['info', 'driver link back'],
      ['warn', 'failover breaker open: its provider is skipped'],
      ['info', 'failover breaker half-open: one trial send'],
      ['info', 'failover breaker closed: its provider is used again'],
    ]);
    expect(lines[2]!.meta).toEqual({ driver: 'smsc', link: 'SMPP bind to 127.0.0.1:2775', reason: 'bound', downSeconds: 42 });
    expect(lines[3]!.meta).toEqual({ driver: 'sms-failover', provider: 'smsc', channels: ['sms'], reason: 'why' });
  });
});
