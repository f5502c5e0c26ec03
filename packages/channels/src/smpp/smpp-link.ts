import { healthWatchers } from '../shared/health-watchers.ts';

/**
 * The bind of an SMPP driver as its watchers see it (`ChannelDriver.watch`): told when it comes up
 * and when it goes down, once per change, so that a reconnect loop against a dead SMSC tells one
 * "down" and the bind that ends it one "up". A watcher that throws is not the driver's problem.
 */
export function createLinkState(driver: string, link: string) {
  const watchers = healthWatchers();
  let up: boolean | null = null;
  return {
    watch: watchers.watch,
    /** The bind is up (`true`) or down, for `reason`; told only when that changes it. */
    set(isUp: boolean, reason: string): void {
      if (up === isUp) return;
      up = isUp;
      watchers.tell({ type: 'link', driver, link, up: isUp, reason });
    },
  };
}
