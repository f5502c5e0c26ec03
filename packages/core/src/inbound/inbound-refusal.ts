/**
 * Whether an incoming message the engine refused with `error` can never be taken: the message
 * itself is invalid (`validation_failed`: a sender that is no phone number, or in national format
 * with no country to read it in), so no retry of the provider changes it. A driver acknowledges such a message and drops it (the engine
 * has reported it to `onInboundRefused`, where it is logged) rather than have the provider deliver
 * it again for ever. Any other refusal (no account owns the address yet, several do, the database
 * failed) may be taken later: the driver refuses it, so the provider keeps it.
 *
 * @example
 * try { await ctx.inbound(report); } catch (error) { if (!inboundRefusedForGood(error)) throw error; }
 */
export function inboundRefusedForGood(error: unknown): boolean {
  // By code, not by class: a driver may see the error of another copy of @spillway/core.
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'validation_failed';
}
