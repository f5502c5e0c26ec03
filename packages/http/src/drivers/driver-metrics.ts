import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import type { ChannelDriver } from '@spillway/core';
import { sharedMetric } from '../metrics.ts';
import { membersOf } from './driver-events.ts';
import type { DriverEvent } from './driver-events.ts';

const BREAKER_STATES = { closed: 0, 'half-open': 1, open: 2 } as const;

/** The driver metrics of {@link createDriverMetrics}. */
export interface DriverMetrics {
  /** Records drivers' events (this thread's, or a workers' thread's, posted as plain data). */
  record(events: readonly DriverEvent[]): void;
}

/**
 * Driver metrics on `registry`: `spillway_driver_up{driver}` (1 while a driver's connection is
 * up, 0 while not: SMPP binds; drivers without a connection of their own have no series),
 * `spillway_breaker_state{failover,driver}` (a failover's breaker for one of its providers: 0
 * closed, 1 half-open, 2 open; every provider of the failovers among `drivers` from 0) and
 * `spillway_inbound_refused_total{driver,reason}` (incoming messages not taken: `no_owner`,
 * `several_owners`, `failed`, kept by the provider; `invalid`, dropped). Labels are configured names and fixed reasons only.
 *
 * @example
 * const metrics = createDriverMetrics(registry, drivers);
 * watchDrivers(drivers, (event) => metrics.record([event]));
 */
export function createDriverMetrics(registry: Registry, drivers: readonly ChannelDriver[] = []): DriverMetrics {
  const up = sharedMetric(
    registry,
    'spillway_driver_up',
    () =>
      new Gauge({
        name: 'spillway_driver_up',
        help: "Whether a driver's connection is up (1) or not (0): SMPP binds",
        labelNames: ['driver'] as const,
        registers: [registry],
      }),
  );
  const breaker = sharedMetric(
    registry,
    'spillway_breaker_state',
    () =>
      new Gauge({
        name: 'spillway_breaker_state',
        help: "A failover's circuit breaker for one of its providers: 0 closed, 1 half-open (one trial send), 2 open (skipped)",
        labelNames: ['failover', 'driver'] as const,
        registers: [registry],
      }),
  );
  const refused = sharedMetric(
    registry,
    'spillway_inbound_refused_total',
    () =>
      new Counter({
        name: 'spillway_inbound_refused_total',
        help: 'Incoming messages from drivers not taken, by driver and reason: no_owner, several_owners, failed (the provider keeps them), invalid (dropped)',
        labelNames: ['driver', 'reason'] as const,
        registers: [registry],
      }),
  );
  for (const d of drivers) {
    for (const m of membersOf(d) ?? []) breaker.set({ failover: d.name, driver: m.name }, BREAKER_STATES.closed);
  }
  return {
    record(events) {
      for (const event of events) {
        switch (event.type) {
          case 'link':
            up.set({ driver: event.driver }, event.up ? 1 : 0);
            break;
          case 'breaker':
            breaker.set({ failover: event.driver, driver: event.provider }, BREAKER_STATES[event.state]);
            break;
          case 'inbound-refused':
            refused.inc({ driver: event.driver, reason: event.reason });
            break;
        }
      }
    },
  };
}
