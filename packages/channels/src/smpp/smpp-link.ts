import type { DriverHealthEvent } from '@spillway/core';

type Listener = (event: DriverHealthEvent) => void;

/**
 * The bind of an SMPP driver as its watchers see it (`ChannelDriver.watch`): told when it comes up
 * and when it goes down, once per change, so that a reconnect loop against a dead SMSC tells one
 * "down" and the bind that ends it one "up". A watcher that throws is not the driver's problem.
 */
export function createLinkState(driver: string, link: string) {
  const listeners = new Set<Listener>();
  let up: boolean | null = null;
  return {
    watch(listener: Listener): () => void {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    /** The bind is up (`true`) or down, for `reason`; told only when that changes it. */
    set(isUp: boolean, reason: string): void {
      if (up === isUp) return;
      up = isUp;
      const event: DriverHealthEvent = { type: 'link', driver, link, up: isUp, reason };
      for (const listener of listeners) {
        try {
          listener(event);
        } catch {
          // A watcher's failure (a logger's) never breaks the bind.
        }
      }
    },
  };
}
