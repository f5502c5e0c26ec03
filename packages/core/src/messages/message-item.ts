import * as z from 'zod';
import { isoTime, isoTimeSchema } from '../iso-time.ts';
import type { MessageType } from '../types/channel.ts';
import { normalizePhoneNumber } from './phone-number.ts';
import {
  chatCarouselData,
  chatText,
  checkChatCarousel,
  checkPromo,
  checkRcs,
  checkTrans,
  flashcallCode,
  noMessageData,
  optionalChatText,
  otpData,
  promoData,
  rcsData,
  smsText,
  surveyData,
  transData,
} from './message-data.ts';

/**
 * The zod schemas of a send request (interface 2.1): a message item per type, with its fallbacks.
 * Parsing normalizes: `to` to digits, `ttl` to seconds, a flash call code to a string, an empty
 * `customerMessageId` to null, `scheduledAt` to UTC ISO, OTP params to their types. Unknown
 * top-level members of an item are ignored (stripped); `parseSendRequest` refuses those that nearly
 * name a known one (`sheduledAt`).
 */

/** At most this many messages per request (interface 8). */
export const MAX_MESSAGES = 5000;
/** At most this many fallbacks per message. */
export const MAX_FALLBACKS = 5;
/** Longest ttl: 14 days, in seconds. */
export const MAX_TTL_SECONDS = 1_209_600;
/** Longest `customerMessageId`. */
export const MAX_CUSTOMER_MESSAGE_ID = 64;

/** Longest `from` (an alpha-name). */
export const MAX_FROM = 64;

const from = z.string().min(1, 'from (the alpha-name) must not be empty').max(MAX_FROM);

const to = z.string().transform((raw, ctx) => {
  const digits = normalizePhoneNumber(raw);
  if (digits !== null) return digits;
  ctx.issues.push({
    code: 'custom',
    input: raw,
    message: 'Must be a possible phone number in E.164 form (digits, country code first, optional +)',
  });
  return z.NEVER;
});

const TTL_DIGITS = /^\d{1,8}$/;
/** What every refused ttl is told, whatever was wrong with it. */
export const TTL_MESSAGE = `ttl is whole seconds from 1 to ${MAX_TTL_SECONDS} (14 days), as an integer or a string`;
/**
 * The ttl of a message or fallback. `z.int` has a bound of its own, the safe integers: 1e308 was
 * told "expected int to be <=9007199254740991" and 1.5 "Invalid input", so its errors, and the
 * union's, say the ttl's bounds too.
 */
const ttl = z
  .union([z.int({ error: TTL_MESSAGE }), z.string()], { error: TTL_MESSAGE })
  .nullish()
  .transform((v, ctx) => {
    if (v === undefined || v === null) return null;
    const n = typeof v === 'number' ? v : TTL_DIGITS.test(v) ? Number(v) : NaN;
    if (n >= 1 && n <= MAX_TTL_SECONDS) return n;
    ctx.issues.push({ code: 'custom', input: v, message: TTL_MESSAGE });
    return z.NEVER;
  });

const customerMessageId = z
  .string()
  .max(MAX_CUSTOMER_MESSAGE_ID)
  .nullish()
  .transform((v) => (v ? v : null));

/**
 * ISO 8601 date-time with `Z` or an offset (seconds and the offset's colon optional; without an
 * offset refused, as the cascade API's `sheduledSent`); normalized to UTC ISO, which a replay's
 * content compares. The 30-day window needs a clock: see parseSendRequest.
 */
const scheduledAt = isoTimeSchema({ withoutOffset: 'refuse', name: 'scheduledAt' })
  .transform(isoTime)
  .nullish()
  .transform((v) => v ?? null);

const nestedFallbacks = z.never({ error: 'A fallback cannot have fallbacks of its own' }).optional();
const fallbackScheduledAt = z.never({ error: 'Only the message itself can be scheduled, not a fallback' }).optional();

type Check<D> = (v: { text: string; messageData?: D | undefined }, ctx: z.RefinementCtx) => void;

/** Combination checks run once text and messageData parsed, even when another member failed. */
const contentParsed = {
  when: (payload: { issues: readonly { path?: readonly PropertyKey[] | undefined }[] }) =>
    !payload.issues.some((i) => i.path?.[0] === 'text' || i.path?.[0] === 'messageData'),
};

/**
 * The union member of every type (interface 2.1.1), with the members `shape` adds: the rules of
 * each type (text, messageData, combination check) are written once, for messages and fallbacks.
 */
function variantsOf<S extends z.ZodRawShape>(shape: S) {
  const variant = <T extends MessageType, X extends z.ZodType<string, unknown>, D extends z.ZodType>(
    type: T,
    text: X,
    messageData: D,
    check?: Check<NonNullable<z.output<D>>>,
  ) => {
    const schema = z.object({ type: z.literal(type), from, to, text, messageData, ttl, ...shape });
    // The generic output type cannot be related to Check by the compiler; the shapes match.
    return check
      ? schema.superRefine(check as unknown as (v: z.output<typeof schema>, ctx: z.RefinementCtx) => void, contentParsed)
      : schema;
  };
  return [
    variant('sms', smsText, noMessageData),
    variant('chatapp_service', chatText, noMessageData),
    variant('chatapp_trans', optionalChatText, transData.optional(), checkTrans),
    variant('chatapp_promo', optionalChatText, promoData.optional(), checkPromo),
    variant('chatapp_carousel', optionalChatText, chatCarouselData, checkChatCarousel),
    variant('chatapp_survey', chatText, surveyData),
    variant('chatapp_otp', optionalChatText, otpData),
    variant('chatapp_session', chatText, noMessageData),
    variant('flashcall_callback', flashcallCode, noMessageData),
    variant('flashcall', flashcallCode, noMessageData),
    variant('rcs', optionalChatText, rcsData.optional(), checkRcs),
  ] as const;
}

/** A fallback of a message: from, to, type, text, optional ttl and messageData; no fallbacks of its own. */
export const fallbackSchema = z.discriminatedUnion('type', variantsOf({ fallbacks: nestedFallbacks, scheduledAt: fallbackScheduledAt }));

const fallbacks = z
  .array(fallbackSchema)
  .max(MAX_FALLBACKS, `At most ${MAX_FALLBACKS} fallbacks`)
  .nullish()
  .transform((v) => v ?? []);

/** Members every item has whatever its type: reported even when the type is unknown. */
export const commonItemSchema = z.object({ from, to, ttl, customerMessageId, scheduledAt });

/** One item of the `messages` array (interface 2.1, 2.2) plus Spillway's `scheduledAt`. */
export const messageItemSchema = z.discriminatedUnion('type', variantsOf({ customerMessageId, scheduledAt, fallbacks }));

/** The send request body: `{ messages: [...] }` with 1 to 5000 items. For OpenAPI use `io: 'input'`. */
export const sendRequestSchema = z.object({
  messages: z.array(messageItemSchema).min(1).max(MAX_MESSAGES, `At most ${MAX_MESSAGES} messages per request`),
});

/** A normalized message item, as parsed. */
export type MessageItem = z.output<typeof messageItemSchema>;
/** A normalized fallback, as parsed. */
export type FallbackItem = z.output<typeof fallbackSchema>;
/** A send request as parsed (normalized). */
export type SendRequest = z.output<typeof sendRequestSchema>;
/** A send request as sent by a client. */
export type SendRequestInput = z.input<typeof sendRequestSchema>;
