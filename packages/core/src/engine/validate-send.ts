import { SpillwayError } from '../errors.ts';
import type { ErrorDetail } from '../errors.ts';
import { parseSendRequest } from '../messages/send-request.ts';
import type { ValidatedMessage } from '../messages/send-request.ts';
import { MAX_MESSAGES } from '../messages/message-item.ts';
import type { Storage } from '../ports/storage.ts';
import { alphaNameIssues, sendersOf } from './alpha-names.ts';

const indexOf = (path: string) => Number(/^messages\[(\d+)\]/.exec(path)?.[1] ?? -1);

/**
 * Validates a send request whole: the schema rules of interface 2.1–2.3 and the account's
 * alpha-names, together, so that one 400 lists every bad item (ordered by item).
 */
export async function validateSendRequest(storage: Storage, accountId: number, body: unknown, now: number): Promise<ValidatedMessage[]> {
  let validated: ValidatedMessage[] | null = null;
  let schemaError: SpillwayError | null = null;
  try {
    validated = parseSendRequest(body, { now });
  } catch (error) {
    if (!(error instanceof SpillwayError) || error.code !== 'validation_failed') throw error;
    schemaError = error;
  }
  const items = (body as { messages?: unknown } | null)?.messages;
  const senders = Array.isArray(items) && items.length <= MAX_MESSAGES ? sendersOf(items) : [];
  const alphaDetails = await alphaNameIssues(storage, accountId, senders);
  if (!schemaError && alphaDetails.length === 0) return validated!;
  const details: ErrorDetail[] = [...(schemaError?.details ?? []), ...alphaDetails];
  details.sort((a, b) => indexOf(a.path) - indexOf(b.path));
  const message = schemaError?.message ?? `${alphaDetails.length} sender(s) are not approved alpha-names of this account`;
  throw new SpillwayError('validation_failed', message, details);
}
