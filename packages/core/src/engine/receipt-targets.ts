import type { MessageStorage } from '../ports/message-storage.ts';
import type { ErrorDetail } from '../errors.ts';
import { formatPath } from '../validation/issue-details.ts';

/** An attempt a receipt names by its message and step. */
export interface ReceiptTarget {
  messageId: number;
  step: number;
}

/** A receipt's target that is not an attempt: what is missing, and the error detail saying so. */
export interface ReceiptTargetIssue {
  missing: 'message' | 'step';
  detail: ErrorDetail;
}

/**
 * What is wrong with the attempts receipts name, as error details at `pathOf(i)` (the i-th
 * target's path, to which `.messageId` or `.step` is appended): a message that does not exist, or a
 * step the message does not have (its steps are 0 to one less than their number). A receipt for
 * either would have been stored, and one for a missing step written into the message's history as
 * an attempt it never made. Empty when every target is an attempt of a stored message.
 */
export async function receiptTargetIssues(
  storage: Pick<MessageStorage, 'getMessages'>,
  targets: readonly ReceiptTarget[],
  pathOf: (index: number) => string,
): Promise<ReceiptTargetIssue[]> {
  if (targets.length === 0) return [];
  const stepsOf = new Map((await storage.getMessages([...new Set(targets.map((t) => t.messageId))])).map((m) => [m.id, m.steps.length]));
  const issues: ReceiptTargetIssue[] = [];
  targets.forEach((t, i) => {
    const steps = stepsOf.get(t.messageId);
    if (steps === undefined) {
      issues.push({ missing: 'message', detail: { path: formatPath(['messageId'], pathOf(i)), message: `no message ${t.messageId}` } });
    } else if (t.step >= steps) {
      const message = `message ${t.messageId} has ${steps === 1 ? 'one step, 0' : `steps 0 to ${steps - 1}`}`;
      issues.push({ missing: 'step', detail: { path: formatPath(['step'], pathOf(i)), message } });
    }
  });
  return issues;
}
