import type * as z from 'zod';
import { SpillwayError } from '../errors.ts';
import type { ErrorDetail } from '../errors.ts';
import { channelOfType, MESSAGE_TYPES } from '../types/channel.ts';
import type { StepSpec } from '../types/message.ts';
import { countSegments } from '../sms/segments.ts';
import { formatPath } from '../validation/issue-details.ts';
import { addNearMisses, didYouMean, knownMembers, meantMember } from '../validation/near-miss.ts';
import { holdsNul, NUL_MESSAGE, nulPath } from '../validation/nul.ts';
import { membersAt } from '../validation/schema-members.ts';
import { MAX_WAIT_SECONDS } from '../validation/whole-seconds.ts';
import { holdsLoneSurrogate, isMarkedWellFormed, wellFormedCopy } from '../validation/well-formed.ts';
import { commonItemSchema, MAX_FALLBACKS, MAX_MESSAGES, messageItemSchema } from './message-item.ts';
import type { FallbackItem, MessageItem } from './message-item.ts';
import { parseCommonSms } from './sms-fast-path.ts';
import { getOtpTemplate, renderOtpTemplate } from './otp-templates.ts';

export { sendRequestSchema, messageItemSchema, fallbackSchema, MAX_MESSAGES, MAX_FALLBACKS, MAX_TTL_SECONDS } from './message-item.ts';
export type { SendRequest, SendRequestInput, MessageItem, FallbackItem } from './message-item.ts';

/** Furthest a message can be scheduled ahead: 30 days. */
export const MAX_SCHEDULE_AHEAD_MS = MAX_WAIT_SECONDS * 1000;

/** One channel attempt of a message before pricing: the primary item or a fallback. */
export type AttemptDraft = Omit<StepSpec, 'cost' | 'rate'>;

/** A message item that passed validation, with what the engine needs to accept it. */
export interface ValidatedMessage {
  /** Position in the request's `messages` array. */
  index: number;
  /** The item, normalized. */
  item: MessageItem;
  customerMessageId: string | null;
  /** When to send, ms since the epoch; null to send now (also for a time already past). */
  scheduledAt: number | null;
  /** The item's ttl in seconds, null for the engine default. */
  ttl: number | null;
  /** The primary attempt first, then one per fallback. */
  attempts: AttemptDraft[];
  /**
   * Canonical JSON of the normalized item, compared on `customerMessageId` replays. Canonical
   * because the parser builds every object in its schema's key order (and OTP params in template
   * order), whatever order the client sent: cheaper than sorting keys, and as stable. Serialised
   * on first read: most messages of a bulk request (no customerMessageId, not scheduled) never
   * need it.
   */
  content: string;
}

/**
 * Validates a send request body and answers its messages normalized, or throws a
 * `validation_failed` SpillwayError listing every bad path (`messages[3].to`,
 * `messages[2].fallbacks[0].type`). The size limit is checked before any item is looked at. Each
 * item's strings are made well-formed (a lone UTF-16 surrogate becomes U+FFFD, see
 * `wellFormed`), unless the body was made so as it was parsed (`markWellFormed`: an HTTP body).
 *
 * @example
 * parseSendRequest({ messages: [{ from: 'Acme', to: '+999000000100', type: 'sms', text: 'Hi' }] }, { now: Date.now() })
 */
export function parseSendRequest(body: unknown, opts: { now: number }): ValidatedMessage[] {
  const messages =
    typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as { messages?: unknown }).messages : undefined;
  if (!Array.isArray(messages)) {
    const message = 'The body must be a JSON object with a messages array';
    throw new SpillwayError('validation_failed', message, [{ path: 'messages', message }]);
  }
  if (messages.length === 0 || messages.length > MAX_MESSAGES) {
    const message = `A request carries 1 to ${MAX_MESSAGES} messages; this one has ${messages.length}`;
    throw new SpillwayError('validation_failed', message, [{ path: 'messages', message }]);
  }
  const out: ValidatedMessage[] = [];
  const details: ErrorDetail[] = [];
  let invalid = 0;
  // An HTTP body was made well-formed at the door: its items are not looked at again.
  const wellFormedAlready = isMarkedWellFormed(body);
  for (let index = 0; index < messages.length; index++) {
    const raw: unknown = messages[index];
    const prefix = `messages[${index}]`;
    // The common shape is answered without zod (the same output); anything else, and every error, is zod's.
    let item = parseCommonSms(raw);
    // The common item's strings are its from, text and customerMessageId (to is digits by now).
    let nul = item !== undefined && (holdsNul(item.from) || holdsNul(item.text) || holdsNul(item.customerMessageId));
    // Whether the item's strings are to be made well-formed: the common item's three looked at here.
    let mend =
      item !== undefined &&
      !wellFormedAlready &&
      (holdsLoneSurrogate(item.from) ||
        holdsLoneSurrogate(item.text) ||
        (item.customerMessageId !== null && holdsLoneSurrogate(item.customerMessageId)));
    if (item === undefined) {
      const result = messageItemSchema.safeParse(raw);
      if (!result.success) {
        invalid++;
        addIssues(details, prefix, result.error.issues, raw);
        // With no usable type only `type` is reported by the union; report the shared members too.
        if (result.error.issues.some((i) => i.code === 'invalid_union' && i.path.length === 1 && i.path[0] === 'type')) {
          const common = commonItemSchema.safeParse(raw);
          if (!common.success) addIssues(details, prefix, common.error.issues, raw);
        }
        addItemNearMisses(raw, prefix, details);
        continue;
      }
      item = result.data;
      nul = holdsNul(item);
      mend = !wellFormedAlready; // walked by wellFormedCopy, which answers the item itself when it holds none
    }
    // A member that nearly names one the item takes (`sheduledAt`) was meant as it: refused, not dropped.
    if (addItemNearMisses(raw, prefix, details)) {
      invalid++;
      continue;
    }
    if (nul) {
      // No channel carries it, and PostgreSQL cannot store it in text: refused on every storage alike.
      invalid++;
      details.push({ path: `${prefix}${nulPath(item)}`, message: NUL_MESSAGE });
      continue;
    }
    // A copy, when a string holds a lone surrogate: the parsed item may share the caller's objects.
    if (mend) item = wellFormedCopy(item);
    let scheduledAt: number | null = null;
    if (item.scheduledAt !== null) {
      const at = Date.parse(item.scheduledAt);
      if (at - opts.now > MAX_SCHEDULE_AHEAD_MS) {
        invalid++;
        details.push({ path: `${prefix}.scheduledAt`, message: 'scheduledAt is at most 30 days ahead' });
        continue;
      }
      if (at > opts.now) scheduledAt = at;
    }
    if (invalid > 0) continue; // the request fails anyway: skip building what will be thrown away
    const attempts: AttemptDraft[] = [draftOf(item)];
    for (const fallback of item.fallbacks) attempts.push(draftOf(fallback));
    out.push(validatedMessage(index, item, scheduledAt, attempts));
  }
  if (invalid > 0) {
    throw new SpillwayError('validation_failed', `${invalid} of ${messages.length} messages are invalid`, details);
  }
  return out;
}

function validatedMessage(index: number, item: MessageItem, scheduledAt: number | null, attempts: AttemptDraft[]): ValidatedMessage {
  let content: string | undefined;
  return {
    index,
    item,
    customerMessageId: item.customerMessageId,
    scheduledAt,
    ttl: item.ttl,
    attempts,
    // An own enumerable getter: a spread of the message copies the value, as it did the field.
    get content() {
      return (content ??= JSON.stringify(item));
    },
  };
}

/** The attempt of one item or fallback: its channel, its text as sent and its SMS parts. */
function draftOf(item: MessageItem | FallbackItem): AttemptDraft {
  let text = item.text;
  if (item.type === 'chatapp_otp') {
    // The template decides what is delivered; the English rendering stands for it in records.
    text = renderOtpTemplate(getOtpTemplate(item.messageData.templateId)!, item.messageData.templateParams);
  }
  const draft: AttemptDraft = {
    channel: channelOfType(item.type),
    type: item.type,
    from: item.from,
    to: item.to,
    text,
    ttl: item.ttl,
    partsCount: item.type === 'sms' ? countSegments(text).parts : 1,
  };
  if (item.messageData !== undefined) draft.messageData = item.messageData as Record<string, unknown>;
  return draft;
}

/** What a member no schema of the item takes is told: `messageData` and its parts refuse them all. */
const UNKNOWN_FIELD = 'Unknown field';

/**
 * Members of an item or a fallback, whatever its type. The item schemas drop the members they do
 * not name (clients send fields of their own): a near miss of one of these is refused instead.
 */
const itemMembers = knownMembers(messageItemSchema.options.flatMap((option) => Object.keys(option.shape)));

/**
 * Adds a detail for every member of the item `raw` or of one of its fallbacks that nearly names
 * one they take (`messages[0].sheduledAt`: did you mean "scheduledAt"?); answers whether it did.
 * Looks only at names, without allocating: it runs on every item of a bulk request.
 */
function addItemNearMisses(raw: unknown, prefix: string, details: ErrorDetail[]): boolean {
  let any = addNearMisses(raw, itemMembers, prefix, details, UNKNOWN_FIELD);
  const fallbacks = typeof raw === 'object' && raw !== null ? (raw as { fallbacks?: unknown }).fallbacks : undefined;
  if (Array.isArray(fallbacks) && fallbacks.length <= MAX_FALLBACKS) {
    for (let i = 0; i < fallbacks.length; i++) {
      if (addNearMisses(fallbacks[i], itemMembers, `${prefix}.fallbacks[${i}]`, details, UNKNOWN_FIELD)) any = true;
    }
  }
  return any;
}

/**
 * Converts zod issues to details with the interface's paths (`messages[3].fallbacks[0].to`); an
 * unknown member of a strict object (`messageData`) is told the member it nearly names, if any, of
 * that object in the item `raw`.
 */
function addIssues(details: ErrorDetail[], prefix: string, issues: readonly z.core.$ZodIssue[], raw: unknown): void {
  for (const issue of issues) {
    const path = formatPath(issue.path, prefix);
    if (issue.code === 'unrecognized_keys') {
      const known = membersAt(messageItemSchema, raw, issue.path);
      for (const key of issue.keys) {
        const meant = meantMember(key, known);
        details.push({ path: `${path}.${key}`, message: meant === undefined ? UNKNOWN_FIELD : `${UNKNOWN_FIELD}; ${didYouMean(meant)}` });
      }
    } else if (issue.code === 'invalid_union' && 'discriminator' in issue && issue.discriminator === 'type') {
      details.push({ path, message: `type must be one of ${MESSAGE_TYPES.join(', ')}` });
    } else {
      details.push({ path, message: issue.message });
    }
  }
}
