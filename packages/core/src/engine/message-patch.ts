import { z } from 'zod';
import type { Clock } from '../clock.ts';
import { SpillwayError } from '../errors.ts';
import { messageMachine } from '../machines/message-machine.ts';
import { priceAttempt } from '../pricing/price-attempt.ts';
import type { RateCard } from '../pricing/rate-card.ts';
import type { ScheduledChange } from '../ports/message-storage.ts';
import type { Storage } from '../ports/storage.ts';
import type { StepSpec, StoredMessage } from '../types/message.ts';
import type { ErrorDetail } from '../errors.ts';
import { issuesToDetails } from '../validation/issue-details.ts';
import { didYouMean, meantMember } from '../validation/near-miss.ts';
import { TTL_MESSAGE } from '../messages/message-item.ts';
import type { MachineAdvancer } from './advance.ts';
import { fromMicros } from './money.ts';
import { fillMessageTexts } from '../clients/phone-data-texts.ts';
import { validateSendRequest } from './validate-send.ts';

const changes = {
  text: z.union([z.string(), z.number().int()]).optional(),
  // Checked again with the message; here too a number that is no safe integer (1e308) is told the bounds.
  ttl: z
    .union([z.string(), z.number().int({ error: TTL_MESSAGE })], { error: TTL_MESSAGE })
    .nullable()
    .optional(),
  scheduledAt: z.string().nullable().optional(),
  messageData: z.record(z.string(), z.unknown()).nullable().optional(),
  fallbacks: z.array(z.unknown()).optional(),
};

/**
 * `PATCH /bat/message/{messageId}`: `{ "cancel": true }` alone withdraws a scheduled message
 * (refunding its charge); otherwise the given fields replace those of the message, which is
 * validated again as a whole. `customerMessageId` cannot change.
 */
const cancelSchema = z.object({ cancel: z.literal(true) }).strict();
const changesSchema = z
  .object(changes)
  .strict()
  .refine((p) => Object.keys(p).length > 0, 'give at least one of text, ttl, scheduledAt, messageData, fallbacks, or { "cancel": true }');
export const messagePatchSchema = z.union([cancelSchema, changesSchema]);

/**
 * The details of a refused patch, an unknown member at its own path (`textt`: `unknown member;
 * did you mean "text"?`, or that `{ "cancel": true }` goes alone) rather than at `(body)`; with
 * one, the "give at least one" of an object of no known member is left out, as it says no more.
 */
function patchIssues(issues: readonly z.core.$ZodIssue[], cancels: boolean): ErrorDetail[] {
  const unknown = issues.filter((issue) => issue.code === 'unrecognized_keys');
  if (unknown.length === 0) return issuesToDetails(issues);
  const details: ErrorDetail[] = [];
  for (const issue of issues) {
    if (issue.code !== 'unrecognized_keys') {
      if (issue.code !== 'custom') details.push(...issuesToDetails([issue]));
      continue;
    }
    for (const key of issue.keys) {
      const meant = cancels ? undefined : meantMember(key, Object.keys(changes));
      const message = cancels
        ? '{ "cancel": true } goes alone: cancel, or change members, in one request each'
        : `unknown member; ${meant === undefined ? `the members are ${Object.keys(changes).join(', ')}, or cancel` : didYouMean(meant)}`;
      details.push({ path: key, message });
    }
  }
  return details;
}

export interface PatchDeps {
  storage: Storage;
  clock: Clock;
  rateCard: RateCard;
  advancer: MachineAdvancer;
  notify: () => void;
}

const notScheduled = (message: StoredMessage, status: string = message.status) =>
  new SpillwayError('conflict', `message ${message.id} is ${status}: only scheduled messages can change`);

/** Changes or cancels a scheduled message; the storage applies it only if it is still scheduled. */
export async function applyMessagePatch(deps: PatchDeps, message: StoredMessage, body: unknown): Promise<void> {
  const { storage, clock } = deps;
  // The form is told by `cancel`: a bad change is then answered at its own path (`ttl`), not as the
  // union's "Invalid input" of the whole body.
  if (Array.isArray(body)) {
    // The content type `application/json-patch+json` is one of the interface's JSON types; its
    // RFC 6902 operations are not what this PATCH reads.
    throw new SpillwayError('validation_failed', 'invalid message patch', [
      {
        path: '(body)',
        message:
          'expected an object of the members to change ({ "text": "..." }, or { "cancel": true }); ' +
          'a JSON Patch (RFC 6902) array of operations is not taken',
      },
    ]);
  }
  const cancels = typeof body === 'object' && body !== null && 'cancel' in body;
  const parsed = (cancels ? cancelSchema : changesSchema).safeParse(body);
  if (!parsed.success) throw new SpillwayError('validation_failed', 'invalid message patch', patchIssues(parsed.error.issues, cancels));
  if (message.status !== 'scheduled') throw notScheduled(message);
  const now = clock.now();
  const patch = parsed.data;
  /** The wallet transaction of a cost moving by `difference` micro-units, or null. */
  const walletOf = (difference: number, what: string): ScheduledChange['wallet'] =>
    difference === 0
      ? null
      : {
          kind: difference > 0 ? 'charge' : 'refund',
          amount: -difference,
          description: `${what} of message ${message.id}`,
        };
  const apply = async (change: ScheduledChange) => {
    const result = await storage.updateScheduled(message.id, change, now);
    if (result === 'not_scheduled') throw notScheduled(message, 'no longer scheduled');
    if (result === 'insufficient_funds') {
      throw new SpillwayError('payment_required', `the balance does not cover the change (${fromMicros(-(change.wallet?.amount ?? 0))})`);
    }
  };

  if ('cancel' in patch) {
    const step = deps.advancer.next('message', messageMachine, message.snapshot, { type: 'CANCEL' });
    const cancelled: ScheduledChange = {
      steps: message.steps,
      content: message.content,
      dueAt: message.dueAt,
      expiresAt: message.expiresAt,
      status: step.status,
      snapshot: step.state,
      work: [],
      wallet: walletOf(-message.cost, 'cancellation'),
      history: [{ step: 0, channel: message.steps[0]!.channel, status: 'Cancelled', at: now, error: null }],
    };
    await apply(cancelled);
    return;
  }

  const merged = { ...(JSON.parse(message.content) as Record<string, unknown>), ...patch };
  // The new text takes the recipient's per-phone data, as at acceptance (it was stored as written).
  const validated = await validateSendRequest(storage, message.accountId, { messages: [merged] }, now)
    .then((checked) => fillMessageTexts(storage, message.accountId, checked))
    .catch((error: unknown) => {
      // Report the patch's own paths (`text`), not those of the request it is checked as.
      if (error instanceof SpillwayError && error.details) {
        const details = error.details.map((d) => ({ ...d, path: d.path.replace(/^messages\[0\]\.?/, '') || '(body)' }));
        throw new SpillwayError(error.code, error.message, details);
      }
      throw error;
    });
  const v = validated[0]!;
  const steps: StepSpec[] = v.attempts.map((a) => ({ ...a, ...priceAttempt(deps.rateCard, a) }));
  const difference = steps[0]!.cost - message.cost;
  const dueAt = v.scheduledAt !== null && v.scheduledAt > now ? v.scheduledAt : now;
  // Fallbacks may have come or gone: the machine starts again from the new number of attempts.
  const initial = deps.advancer.initial('message', messageMachine, { attempts: steps.length });
  const change: ScheduledChange = {
    steps,
    content: v.content,
    dueAt,
    expiresAt: v.ttl === null ? null : dueAt + v.ttl * 1000,
    status: initial.status,
    snapshot: initial.state,
    work: [{ kind: 'event', event: { type: 'DUE' }, dueAt }],
    wallet: walletOf(difference, 'change'),
    history: [],
  };
  await apply(change);
  deps.notify();
}
