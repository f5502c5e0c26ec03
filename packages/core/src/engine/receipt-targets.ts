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
 * step the message does not have (its steps are 0 to one less than their number), or a fallback a
 * messaging API message has not come to. A receipt for any of them would have been stored, and one
 * for a missing or unsent step written into the message's history as an attempt it never made. Empty when every target is an attempt of a stored message.
 */
export async function receiptTargetIssues(
  storage: Pick<MessageStorage, 'getMessages'>,
  targets: readonly ReceiptTarget[],
  pathOf: (index: number) => string,
): Promise<ReceiptTargetIssue[]> {
  if (targets.length === 0) return [];
  const messages = new Map((await storage.getMessages([...new Set(targets.map((t) => t.messageId))])).map((m) => [m.id, m]));
  const issues: ReceiptTargetIssue[] = [];
  targets.forEach((t, i) => {
    const m = messages.get(t.messageId);
    const step = (message: string): void => {
      issues.push({ missing: 'step', detail: { path: formatPath(['step'], pathOf(i)), message } });
    };
    if (!m) {
      issues.push({ missing: 'message', detail: { path: formatPath(['messageId'], pathOf(i)), message: `no message ${t.messageId}` } });
    } else if (t.step >= m.steps.length) {
      step(`message ${t.messageId} has ${m.steps.length === 1 ? 'one step, 0' : `steps 0 to ${m.steps.length - 1}`}`);
    } else if (m.kind === 'message' && t.step > currentStep(m)) {
      step(`message ${t.messageId} has not come to step ${t.step}: it is at step ${currentStep(m)}`);
    }
  });
  return issues;
}
