import { SpillwayError } from '../errors.ts';
import type { ErrorDetail } from '../errors.ts';
import type { ValidatedMessage } from '../messages/send-request.ts';
import type { Storage } from '../ports/storage.ts';
import type { ChannelId } from '../types/channel.ts';

/**
 * Every attempt must be sent from an alpha-name the account has approved on the attempt's
 * channel; otherwise the whole request is rejected with every offending path.
 */
export async function checkAlphaNames(storage: Storage, accountId: number, messages: ValidatedMessage[]): Promise<void> {
  const approved = new Map<string, ReadonlySet<ChannelId>>();
  for (const a of await storage.listAlphaNames(accountId)) approved.set(a.name, new Set(a.channels));
  const details: ErrorDetail[] = [];
  for (const m of messages) {
    m.attempts.forEach((attempt, j) => {
      const channels = approved.get(attempt.from);
      if (channels?.has(attempt.channel)) return;
      const path = j === 0 ? `messages[${m.index}].from` : `messages[${m.index}].fallbacks[${j - 1}].from`;
      details.push({
        path,
        message: channels
          ? `alpha-name "${attempt.from}" is not approved for channel ${attempt.channel}`
          : `alpha-name "${attempt.from}" is not an approved alpha-name of this account`,
      });
    });
  }
  if (details.length > 0) {
    throw new SpillwayError('validation_failed', `${details.length} sender(s) are not approved alpha-names`, details);
  }
}
