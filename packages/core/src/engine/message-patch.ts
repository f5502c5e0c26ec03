import { z } from 'zod';
import type { Clock } from '../clock.ts';
import { SpillwayError } from '../errors.ts';
import { issuesToDetails } from '../validation/issue-details.ts';
import { messageMachine } from '../machines/message-machine.ts';
import { parseSendRequest } from '../messages/send-request.ts';
import { priceAttempt } from '../pricing/price-attempt.ts';
import type { RateCard } from '../pricing/rate-card.ts';
import type { Storage } from '../ports/storage.ts';
import type { StepSpec, StoredMessage } from '../types/message.ts';
import type { MachineAdvancer } from './advance.ts';
import { checkAlphaNames } from './alpha-names.ts';
import { fromMicros } from './money.ts';

/**
 * `PATCH /bat/message/{messageId}`: `{ "cancel": true }` withdraws a scheduled message (refunding
 * its charge); otherwise the given fields replace those of the message, which is validated again
 * as a whole. `customerMessageId` cannot change.
 */
export const messagePatchSchema = z
  .object({
    cancel: z.literal(true).optional(),
    text: z.union([z.string(), z.number().int()]).optional(),
    ttl: z.union([z.string(), z.number().int()]).nullable().optional(),
    scheduledAt: z.string().nullable().optional(),
    messageData: z.record(z.string(), z.unknown()).optional(),
    fallbacks: z.array(z.unknown()).optional(),
  })
  .strict();

export interface PatchDeps {
  storage: Storage;
  clock: Clock;
  rateCard: RateCard;
  advancer: MachineAdvancer;
  notify: () => void;
}

export async function applyMessagePatch(deps: PatchDeps, message: StoredMessage, body: unknown): Promise<void> {
  const { storage, clock } = deps;
  const parsed = messagePatchSchema.safeParse(body);
  if (!parsed.success) {
    throw new SpillwayError('validation_failed', 'invalid message patch', issuesToDetails(parsed.error.issues));
  }
  if (message.status !== 'scheduled') {
    throw new SpillwayError('conflict', `message ${message.id} is ${message.status}: only scheduled messages can change`);
  }
  const now = clock.now();
  const patch = parsed.data;

  if (patch.cancel) {
    const step = deps.advancer.next('message', messageMachine, message.snapshot, { type: 'CANCEL' });
    await storage.commit({
      at: now,
      updates: [{ id: message.id, status: step.status, snapshot: step.state, addCost: -message.cost }],
      history: [{ messageId: message.id, step: 0, channel: message.steps[0]!.channel, status: 'Cancelled', at: now, error: null }],
      doneEffects: [],
      newEffects: [],
      cancelTimers: [],
    });
    if (message.cost > 0) {
      await storage.addWalletTransaction(
        {
          accountId: message.accountId,
          kind: 'refund',
          amount: message.cost,
          messageId: message.id,
          description: `cancelled message ${message.id}`,
        },
        now,
      );
    }
    return;
  }

  const { cancel: _cancel, ...changes } = patch;
  const merged = { ...(JSON.parse(message.content) as Record<string, unknown>), ...changes };
  const [validated] = parseSendRequest({ messages: [merged] }, { now });
  if (!validated) throw new SpillwayError('validation_failed', 'invalid message patch');
  await checkAlphaNames(storage, message.accountId, [validated]);
  const steps: StepSpec[] = validated.attempts.map((a) => ({ ...a, ...priceAttempt(deps.rateCard, a) }));
  const difference = steps[0]!.cost - message.cost;
  if (difference > 0) {
    const tx = await storage.tryCharge(
      {
        accountId: message.accountId,
        kind: 'charge',
        amount: -difference,
        messageId: message.id,
        description: `change of message ${message.id}`,
      },
      now,
    );
    if (!tx) throw new SpillwayError('payment_required', `the balance does not cover the change (${fromMicros(difference)})`);
  } else if (difference < 0) {
    await storage.addWalletTransaction(
      {
        accountId: message.accountId,
        kind: 'refund',
        amount: -difference,
        messageId: message.id,
        description: `change of message ${message.id}`,
      },
      now,
    );
  }
  const dueAt = validated.scheduledAt !== null && validated.scheduledAt > now ? validated.scheduledAt : now;
  await storage.updateSteps(message.id, steps, dueAt, validated.content);
  await storage.rescheduleDue(message.id, dueAt);
  if (difference !== 0) {
    await storage.commit({
      at: now,
      updates: [{ id: message.id, status: message.status, snapshot: message.snapshot, addCost: difference }],
      history: [],
      doneEffects: [],
      newEffects: [],
      cancelTimers: [],
    });
  }
  deps.notify();
}
