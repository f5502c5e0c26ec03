import * as z from 'zod';
import { checkOtpParams, getOtpTemplate, normalizeOtpLanguage, OTP_LANGUAGES } from './otp-templates.ts';

/**
 * The content of a message by type: its `text` and its `messageData` (interface 2.2), and the
 * combinations of them the interface documents. Unknown `messageData` members are rejected (a
 * misspelt `imgUrl` must not silently send a message without its image).
 */

/** Longest text of chat-app and RCS messages, UTF-16 code units. */
export const MAX_CHAT_TEXT = 4096;
/** Longest SMS text, UTF-16 code units (11 GSM-7 parts, 24 UCS-2 parts). */
export const MAX_SMS_TEXT = 1600;
/** Longest button caption. */
export const MAX_BUTTON_TEXT = 30;

/** An absolute http(s) URL. A regex rather than z.url(): `new URL()` costs 10x more per value. */
const url = z
  .string()
  .regex(/^https?:\/\/[^\s/?#@:]+(:\d{1,5})?([/?#]\S*)?$/i, 'Must be an absolute http(s) URL')
  .max(2048);
const buttonText = z.string().min(1).max(MAX_BUTTON_TEXT);

/** Text that must be present. */
export const smsText = z.string().min(1, 'SMS text must not be empty').max(MAX_SMS_TEXT);
export const chatText = z.string().min(1, 'Text must not be empty').max(MAX_CHAT_TEXT);
/** Text that some combinations leave out; normalized to `''`. */
export const optionalChatText = z
  .string()
  .max(MAX_CHAT_TEXT)
  .nullish()
  .transform((v) => v ?? '');
/** What a flash call text that is not a code is told, whatever is wrong with it. */
const FLASHCALL_CODE = 'A flash call code is 4 to 8 digits, as a string or an integer';
/** A flash call code: 4 to 8 digits, as a string or an integer; normalized to a string. */
export const flashcallCode = z
  .union([z.string().regex(/^\d{4,8}$/, FLASHCALL_CODE), z.int(FLASHCALL_CODE).min(1000, FLASHCALL_CODE).max(99_999_999, FLASHCALL_CODE)], {
    error: FLASHCALL_CODE,
  })
  .transform(String);

/** `messageData` of types that have none: absent, null or `{}`; normalized to absent. */
export const noMessageData = z
  .strictObject({})
  .nullish()
  .transform(() => undefined);

export const promoData = z.strictObject({
  img: url.optional(),
  buttonText: buttonText.optional(),
  buttonAction: url.optional(),
  video: url.optional(),
  thumbnail: url.optional(),
  fileSize: z.int().positive().optional(),
  duration: z.int().positive().optional(),
});

export const transData = z.strictObject({
  fileUrl: url.optional(),
  fileName: z.string().min(1).max(255).optional(),
  fileType: z.literal('pdf').optional(),
});

/** What a chatapp_survey without its options is told, at the member that is missing. */
const SURVEY_NEEDS = 'chatapp_survey needs messageData.survey.options: 2 to 10 answer options';
/**
 * `message` for a member that is missing (or null), zod's own for anything else: its "expected
 * object, received undefined" names nothing of what was needed.
 */
const whenMissing = (message: string) => (issue: { input?: unknown }) => (issue.input == null ? message : undefined);

export const surveyData = z.strictObject(
  {
    survey: z.strictObject(
      {
        options: z
          .array(z.string().min(1).max(100), { error: whenMissing(SURVEY_NEEDS) })
          .min(2, 'A survey has 2 to 10 options')
          .max(10, 'A survey has 2 to 10 options'),
      },
      { error: whenMissing(SURVEY_NEEDS) },
    ),
  },
  { error: whenMissing(SURVEY_NEEDS) },
);

const chatCard = z.strictObject({
  img: url,
  text: z.string().max(1000).optional(),
  buttonText: buttonText.optional(),
  buttonAction: url.optional(),
});
const CAROUSEL_NEEDS = 'chatapp_carousel needs messageData.carousel: 2 to 10 cards';
/** chatapp_carousel (body not in the interface): 2 to 10 cards, each an image with optional text and button. */
export const chatCarouselData = z.strictObject(
  {
    carousel: z
      .array(chatCard, { error: whenMissing(CAROUSEL_NEEDS) })
      .min(2)
      .max(10),
  },
  { error: whenMissing(CAROUSEL_NEEDS) },
);

const suggestions = z
  .array(z.strictObject({ sugText: z.string().min(1).max(25), sugUrl: url }))
  .min(1)
  .max(4);
const rcsCard = z.strictObject({
  text: z.string().max(2000).optional(),
  img: url.optional(),
  video: url.optional(),
  suggestions: suggestions.optional(),
});
export const rcsData = z.strictObject({
  suggestions: suggestions.optional(),
  img: url.optional(),
  video: url.optional(),
  fileUrl: url.optional(),
  /** RCS carousel (body not in the interface): 2 to 10 rich cards. */
  carousel: z.array(rcsCard).min(2).max(10).optional(),
});

/** chatapp_otp: a template of interface 2.3, its language and its parameters, normalized. */
export const otpData = z
  .strictObject(
    {
      templateId: z.string().max(64),
      templateLang: z.string().max(16),
      templateParams: z.record(z.string().max(64), z.union([z.string().max(256), z.number(), z.boolean(), z.null()])),
    },
    { error: whenMissing('chatapp_otp needs messageData: templateId, templateLang and templateParams') },
  )
  .transform((md, ctx) => {
    const template = getOtpTemplate(md.templateId);
    const lang = normalizeOtpLanguage(md.templateLang);
    if (!lang) {
      ctx.issues.push({
        code: 'custom',
        path: ['templateLang'],
        input: md.templateLang,
        message: `Unsupported templateLang; one of ${OTP_LANGUAGES.join(', ')} (any case)`,
      });
    }
    if (!template) {
      ctx.issues.push({ code: 'custom', path: ['templateId'], input: md.templateId, message: 'Unknown OTP templateId' });
      return z.NEVER;
    }
    const { params, issues } = checkOtpParams(template, md.templateParams);
    for (const issue of issues) {
      const path = issue.param === null ? ['templateParams'] : ['templateParams', issue.param];
      ctx.issues.push({ code: 'custom', path, input: md.templateParams, message: issue.message });
    }
    if (!lang || issues.length > 0) return z.NEVER;
    return { templateId: template.id, templateLang: lang, templateParams: params };
  });

type Ctx = z.RefinementCtx;
type Content<D> = { text: string; messageData?: D | undefined };

function issue(ctx: Ctx, path: (string | number)[], message: string): void {
  ctx.addIssue({ code: 'custom', path, message });
}

/** Button fields come in pairs: a caption needs a target and a target needs a caption. */
function checkButtonPair(
  ctx: Ctx,
  base: (string | number)[],
  md: { buttonText?: string | undefined; buttonAction?: string | undefined },
): void {
  if (md.buttonText !== undefined && md.buttonAction === undefined)
    issue(ctx, [...base, 'buttonAction'], 'buttonAction is required with buttonText');
  if (md.buttonAction !== undefined && md.buttonText === undefined)
    issue(ctx, [...base, 'buttonText'], 'buttonText is required with buttonAction');
}

/**
 * chatapp_promo: image only; text; text + button; image + text + button; video; video + text;
 * video + text + button. A button needs text, image and video exclude each other, image with
 * text needs a button, and the video extras need a video.
 */
export function checkPromo(v: Content<z.output<typeof promoData>>, ctx: Ctx): void {
  const md = v.messageData ?? {};
  const hasText = v.text.length > 0;
  const hasButton = md.buttonText !== undefined || md.buttonAction !== undefined;
  checkButtonPair(ctx, ['messageData'], md);
  if (md.img !== undefined && md.video !== undefined) issue(ctx, ['messageData', 'video'], 'img and video cannot be combined');
  if (hasButton && !hasText) issue(ctx, ['text'], 'A button needs text');
  if (md.img !== undefined && hasText && !hasButton)
    issue(ctx, ['messageData', 'buttonText'], 'An image with text needs a button (buttonText and buttonAction)');
  for (const key of ['thumbnail', 'fileSize', 'duration'] as const) {
    if (md[key] !== undefined && md.video === undefined) issue(ctx, ['messageData', key], `${key} belongs to a video`);
  }
  if (!hasText && !hasButton && md.img === undefined && md.video === undefined)
    issue(ctx, ['text'], 'chatapp_promo needs text, img or video');
}

/** chatapp_trans: text; file + text; file. The file's fileUrl, fileName and fileType go together. */
export function checkTrans(v: Content<z.output<typeof transData>>, ctx: Ctx): void {
  const md = v.messageData ?? {};
  const given = (['fileUrl', 'fileName', 'fileType'] as const).filter((k) => md[k] !== undefined);
  if (given.length > 0 && given.length < 3) {
    for (const k of ['fileUrl', 'fileName', 'fileType'] as const) {
      if (md[k] === undefined) issue(ctx, ['messageData', k], `${k} is required with ${given.join(', ')}`);
    }
  }
  if (given.length === 0 && v.text.length === 0) issue(ctx, ['text'], 'chatapp_trans needs text or a file');
}

/** chatapp_carousel: each card's button fields go together. */
export function checkChatCarousel(v: Content<z.output<typeof chatCarouselData>>, ctx: Ctx): void {
  v.messageData?.carousel.forEach((card, i) => checkButtonPair(ctx, ['messageData', 'carousel', i], card));
}

/**
 * rcs: text; text + buttons; image + text + buttons; video (text, buttons optional); file (text,
 * buttons optional); carousel (alone). Media kinds exclude each other.
 */
export function checkRcs(v: Content<z.output<typeof rcsData>>, ctx: Ctx): void {
  const md = v.messageData ?? {};
  const hasText = v.text.length > 0;
  const media = (['img', 'video', 'fileUrl', 'carousel'] as const).filter((k) => md[k] !== undefined);
  if (media.length > 1) issue(ctx, ['messageData', media[1]!], `${media.join(' and ')} cannot be combined`);
  if (md.img !== undefined && (!hasText || md.suggestions === undefined)) {
    issue(ctx, hasText ? ['messageData', 'suggestions'] : ['text'], 'An RCS image goes with text and suggestions');
  }
  if (md.carousel !== undefined) {
    if (hasText) issue(ctx, ['text'], 'An RCS carousel carries its text in its cards');
    if (md.suggestions !== undefined) issue(ctx, ['messageData', 'suggestions'], 'An RCS carousel carries its suggestions in its cards');
    md.carousel.forEach((card, i) => {
      if (card.img !== undefined && card.video !== undefined)
        issue(ctx, ['messageData', 'carousel', i, 'video'], 'img and video cannot be combined');
      if (!card.text && card.img === undefined && card.video === undefined)
        issue(ctx, ['messageData', 'carousel', i], 'A card needs text, img or video');
    });
  }
  if (media.length === 0 && !hasText) issue(ctx, ['text'], 'rcs needs text, an image, a video, a file or a carousel');
}
