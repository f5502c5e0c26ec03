import type { ChannelContext, ChannelDriver, Engine, InboundReport } from '@spillway/core';
import { carriedBy, withoutNul } from '@spillway/core/adapter';
import type { Hono } from 'hono';
import { membersOf } from './drivers/driver-events.ts';
import type { Env } from './env.ts';

/**
 * Mounts the providers' callbacks of each driver (delivery reports, receipts) under
 * `/channels/{driver name}{route path}`. A receipt is filed under the driver that carried the
 * attempt: a failover's member under its own name (`Receipt.driver`), as its acceptances are, and
 * else under the failover, as attempts accepted before that were.
 *
 * `onInboundRefused` observes the incoming messages the engine did not take (logs, metrics).
 *
 * @example
 * createHttpApp({ engine, extraRoutes: [(app) => registerDriverRoutes(app, engine, drivers)] });
 */
export function registerDriverRoutes(
  app: Hono<Env>,
  engine: Engine,
  drivers: readonly ChannelDriver[],
  options: { onInboundRefused?: (refusal: { driver: string; message: InboundReport; error: unknown }) => void } = {},
): void {
  // The concrete drivers by name: a failover's members in its place, a driver handed to the
  // engine once per channel (a view of it) once.
  const concrete = new Map<string, { driver: ChannelDriver; carrier: string }>();
  for (const d of drivers) {
    const members = membersOf(d);
    for (const m of members ?? [d]) if (!concrete.has(m.name)) concrete.set(m.name, { driver: m, carrier: members ? d.name : m.name });
  }
  for (const { driver, carrier } of concrete.values()) {
    const context: ChannelContext = {
      clock: engine.clock,
      // A provider's text keeps U+FFFD for U+0000, which the engine's own calls refuse: what the
      // network hands in is stored, not refused into a provider's endless retries.
      report: (receipt) =>
        engine.receive(withoutNul(carrier === driver.name ? receipt : carriedBy(receipt, driver.name)), {
          driver: carrier,
        }),
      // Incoming messages (MO) go to the account that owns the alpha-name, stored before the ack.
      inbound: async (message) => {
        try {
          await engine.receiveInbound(withoutNul(message));
        } catch (error) {
          options.onInboundRefused?.({ driver: driver.name, message, error });
          throw error;
        }
      },
    };
    for (const route of driver.routes ?? []) {
      app.on(route.method, `/channels/${driver.name}${route.path}`, (c) => route.handle(c.req.raw, context));
    }
  }
}
