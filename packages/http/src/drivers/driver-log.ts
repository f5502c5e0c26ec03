import type { Clock } from '@spillway/core';
import type { HttpLogger } from '../env.ts';
import type { DriverEvent, InboundRefusal } from './driver-events.ts';

/** One line per address, driver and reason at most this often; the refusals between are counted into the next. */
export const REFUSAL_LOG_WINDOW_MS = 60_000;
/** Addresses whose last line is remembered, at most (the oldest are forgotten first). */
const REMEMBERED = 10_000;

const REFUSED: Record<InboundRefusal['reason'], string> = {
  no_owner: 'incoming message refused: no account owns its address',
  several_owners: 'incoming message refused: several accounts own its address',
  failed: 'incoming message not taken: it could not be stored',
  invalid: 'incoming message dropped: it is invalid, and no retry of the provider can change that',
};

/**
 * Logs what happens to the drivers: a connection lost (warn) and back (info, with how long it was
 * down), a failover's breaker opening (warn), half-opening and closing (info), and incoming
 * messages refused or dropped as invalid. Those come again as long as the provider retries them
 * (and a sender may send an invalid one again): one line per address,
 * driver and reason every {@link REFUSAL_LOG_WINDOW_MS} on `clock`, its `count` the refusals since
 * the last line (this one included).
 */
export function createDriverLog(logger: HttpLogger, clock: Clock): (event: DriverEvent) => void {
  const downSince = new Map<string, number>();
  const lastLine = new Map<string, { at: number; count: number }>();

  function refused(event: InboundRefusal): void {
    const key = `${event.driver}\u0000${event.reason}\u0000${event.address}`;
    const now = clock.now();
    const last = lastLine.get(key);
    if (last && now - last.at < REFUSAL_LOG_WINDOW_MS) {
      last.count++;
      return;
    }
    lastLine.delete(key);
    lastLine.set(key, { at: now, count: 0 });
    for (const oldest of lastLine.keys()) {
      if (lastLine.size <= REMEMBERED) break;
      lastLine.delete(oldest);
    }
    const { driver, channel, address, reason, error } = event;
    const meta = { driver, channel, address, reason, error, count: (last?.count ?? 0) + 1 };
    if (reason === 'failed') logger.error(REFUSED[reason], meta);
    else logger.warn(REFUSED[reason], meta);
  }

  return (event) => {
    switch (event.type) {
      case 'link': {
        const { driver, link, reason } = event;
        if (!event.up) {
          if (!downSince.has(driver)) downSince.set(driver, clock.now());
          logger.warn('driver link lost', { driver, link, reason });
          return;
        }
        const since = downSince.get(driver);
        downSince.delete(driver);
        if (since === undefined) logger.info('driver link up', { driver, link, reason });
        else logger.info('driver link back', { driver, link, reason, downSeconds: Math.round((clock.now() - since) / 1000) });
        return;
      }
      case 'breaker': {
        const { driver, provider, channels, reason } = event;
        const meta = { driver, provider, channels, reason };
        if (event.state === 'open') logger.warn('failover breaker open: its provider is skipped', meta);
        else if (event.state === 'half-open') logger.info('failover breaker half-open: one trial send', meta);
        else logger.info('failover breaker closed: its provider is used again', meta);
        return;
      }
      case 'inbound-refused':
        refused(event);
        return;
    }
  };
}
