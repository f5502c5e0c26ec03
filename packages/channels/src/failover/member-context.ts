import type { ChannelContext, ChannelDriver } from '@spillway/core';
import { carriedBy } from '@spillway/core/adapter';

/**
 * The contexts a composite driver hands its members: each reports its receipts under its own name
 * (`Receipt.driver`), the name its acceptances carry (`SendResult.driver`), so that the engine
 * files a receipt under the provider that carried the attempt; its incoming messages name it too
 * (`InboundReport.driver`, for logs and metrics). What already names a member (one of a nested
 * composite's) keeps it. One context per member and engine context, made once.
 */
export function memberContexts(): (member: ChannelDriver, ctx: ChannelContext) => ChannelContext {
  const made = new WeakMap<ChannelContext, Map<ChannelDriver, ChannelContext>>();
  return (member, ctx) => {
    let byMember = made.get(ctx);
    if (!byMember) made.set(ctx, (byMember = new Map()));
    let own = byMember.get(member);
    if (!own) {
      const inbound = ctx.inbound;
      own = {
        ...ctx,
        report: (receipt) => ctx.report(carriedBy(receipt, member.name)),
        ...(inbound ? { inbound: (message: Parameters<typeof inbound>[0]) => inbound.call(ctx, carriedBy(message, member.name)) } : {}),
      };
      byMember.set(member, own);
    }
    return own;
  };
}
