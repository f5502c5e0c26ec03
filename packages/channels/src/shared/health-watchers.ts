import type { DriverHealthEvent } from '@spillway/core';

/** A watcher of a driver's health, as `ChannelDriver.watch` takes it. */
export type HealthListener = (event: DriverHealthEvent) => void;

/**
 * The watchers of a driver's health: `watch` is the driver's `ChannelDriver.watch` (it adds one and
 * answers the function that removes it), `tell` tells each of them an event. A watcher that throws
 * is not the driver's problem: a logger's failure never breaks a send or a bind.
 */
export function healthWatchers(): { watch: (listener: HealthListener) => () => void; tell: (event: DriverHealthEvent) => void } {
  const listeners = new Set<HealthListener>();
  return {
    watch: (listener) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    tell: (event) => {
      for (const listener of listeners) {
        try {
          listener(event);
        } catch {
          // Told to the others all the same.
        }
      }
    },
  };
}
