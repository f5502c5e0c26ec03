import type { MessageStorage } from '../ports/message-storage.ts';
import type { ErrorDetail } from '../errors.ts';
import type { StoredMessage } from '../types/message.ts';
import { formatPath } from '../validation/issue-details.ts';

/** An attempt a receipt names by its message and step. */
export interface ReceiptTarget {
  messageId: number;
  step: number;
}

/**
 * The attempt a messaging API message is at. Its attempts go in order, each only after the one
 * before failed, and the step is committed before its send goes out: no provider can report on a
 * later one. (A cascade's steps are a graph, and a step's number says nothing of whether it ran.)
 */
const currentStep = (m: StoredMessage): number => Number(m.snapshot.context['step'] ?? 0);

/** A receipt's target that is not an attempt: what is missing, and the error detail saying so. */
export interface ReceiptTargetIssue {
  missing: 'message' | 'step';
  detail: ErrorDetail;
}

/**
 * What is wrong with the attempts receipts name, as error details at `pathOf(i)` (the i-th
 * target's path, to which `.messageId` or `.step` is appended): a message that does not exist, or a
 * step the message does not have (its steps are 0 to one less than their number), a fallback a
 * messaging API message has not come to, or a step a cascade left or never came to without sending. A receipt for any of them would have been stored, and one
 * for a missing or unsent step written into the message's history as an attempt it never made. Empty when every target is an attempt of a stored message.
 */
export async function receiptTargetIssues(
  storage: Pick<MessageStorage, 'getMessages' | 'history'>,
  targets: readonly ReceiptTarget[],
  pathOf: (index: number) => string,
): Promise<ReceiptTargetIssue[]> {
  if (targets.length === 0) return [];
  const messages = new Map((await storage.getMessages([...new Set(targets.map((t) => t.messageId))])).map((m) => [m.id, m]));
  const found: Array<ReceiptTargetIssue | undefined> = [];
  const stepIssue = (i: number, message: string): ReceiptTargetIssue => ({
    missing: 'step',
    detail: { path: formatPath(['step'], pathOf(i)), message },
  });
  // A cascade's step other than its current one: only one it sent can have an outcome. Its history
  // is read for these alone (late receipts), never for the current step's, the common case.
  const sentSteps = new Map<number, Set<number>>();
  for (const [i, t] of targets.entries()) {
    const m = messages.get(t.messageId);
    if (!m) {
      found[i] = { missing: 'message', detail: { path: formatPath(['messageId'], pathOf(i)), message: `no message ${t.messageId}` } };
    } else if (t.step >= m.steps.length) {
      found[i] = stepIssue(i, `message ${t.messageId} has ${m.steps.length === 1 ? 'one step, 0' : `steps 0 to ${m.steps.length - 1}`}`);
    } else if (m.kind === 'message' && t.step > currentStep(m)) {
      found[i] = stepIssue(i, `message ${t.messageId} has not come to step ${t.step}: it is at step ${currentStep(m)}`);
    } else if (m.kind === 'cascade' && t.step !== currentStep(m)) {
      let sent = sentSteps.get(m.id);
      if (!sent) {
        sent = new Set((await storage.history(m.id)).filter((e) => e.status === 'Sent').map((e) => e.step));
        sentSteps.set(m.id, sent);
      }
      if (!sent.has(t.step)) found[i] = stepIssue(i, `cascade message ${t.messageId} never sent step ${t.step}`);
    }
  }
  return found.filter((issue) => issue !== undefined);
}
