import { SpillwayError, inboundRefusedForGood } from '@spillway/core';
import type { ChannelDriver, ChannelId, DriverHealthEvent, InboundReport } from '@spillway/core';

/**
 * Why an incoming message was not taken: no account owns its address, several do, or the store
 * failed (the provider keeps it and tries again); or it is invalid (a sender that is no phone
 * number, or in national format with no country), and the driver acknowledged and dropped it (`inboundRefusedForGood`).
 */
export type InboundRefusalReason = 'no_owner' | 'several_owners' | 'failed' | 'invalid';

/**
 * An incoming message (an MO SMS) a driver reported and the engine did not take: the driver
 * refuses it and the provider keeps it, usually to try again, or, `invalid`, drops it. Plain data
 * (it crosses threads); the sender's number stays out.
 */
export interface InboundRefusal {
  type: 'inbound-refused';
  /** The driver that received it (a failover's member). */
  driver: string;
  channel: ChannelId;
  /** The alpha-name, short code or bot it was sent to. */
  address: string;
  reason: InboundRefusalReason;
  error: string;
}

/** What logs and metrics learn of the drivers: their health ({@link DriverHealthEvent}) and refused incoming messages. */
export type DriverEvent = DriverHealthEvent | InboundRefusal;

/** The {@link InboundRefusal} of an incoming message the engine answered `error`. */
export function inboundRefusal(refusal: { driver: string; message: InboundReport; error: unknown }): InboundRefusal {
  const { driver, message, error } = refusal;
  const code = error instanceof SpillwayError ? error.code : undefined;
  const invalid = inboundRefusedForGood(error);
  // What is wrong with an invalid one (its details name fields, never their values).
  const details = invalid && error instanceof SpillwayError ? (error.details ?? []).map((d) => `${d.path}: ${d.message}`) : [];
  return {
    type: 'inbound-refused',
    driver,
    channel: message.channel,
    address: message.alphaName,
    reason: invalid ? 'invalid' : code === 'not_found' ? 'no_owner' : code === 'conflict' ? 'several_owners' : 'failed',
    error: [error instanceof Error ? error.message : String(error), ...details].join(': '),
  };
}

/** A failover's providers (`createFailoverDriver` lists them as `members`), or undefined for another driver. */
export const membersOf = (driver: ChannelDriver): readonly ChannelDriver[] | undefined =>
  (driver as { members?: readonly ChannelDriver[] }).members;

/**
 * Tells `listener` of the health of `drivers` and of their members (a failover's providers): each
 * driver that can be watched (`ChannelDriver.watch`) is watched once, however many views of it
 * there are (one per channel, an account's wrapper). Answers the function that stops watching.
 */
export function watchDrivers(drivers: readonly ChannelDriver[], listener: (event: DriverHealthEvent) => void): () => void {
  const watches = new Set<NonNullable<ChannelDriver['watch']>>();
  const add = (d: ChannelDriver) => {
    if (d.watch) watches.add(d.watch);
    for (const member of membersOf(d) ?? []) add(member);
  };
  for (const d of drivers) add(d);
  const stops = [...watches].map((watch) => watch(listener));
  return () => {
    for (const stop of stops) stop();
  };
}
