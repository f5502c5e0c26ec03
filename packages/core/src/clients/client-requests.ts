import { z } from 'zod';
import { SpillwayError } from '../errors.ts';
import { MIN_PASSWORD_LENGTH } from '../types/account.ts';
import { CHANNELS } from '../types/channel.ts';
import { issuesToDetails } from '../validation/issue-details.ts';

/**
 * An SMS sender id: up to 11 characters when it holds a letter (GSM alphanumeric originator),
 * up to 15 digits when numeric (a long number).
 */
export const alphaNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9 ._&'-]*$/, "letters, digits, space and . _ & ' - only, starting with a letter or digit")
  .refine((v) => (/[^0-9]/.test(v) ? v.length <= 11 : v.length <= 15), 'at most 11 characters (15 digits when numeric)')
  .meta({ examples: ['Acme'] });

const channelsSchema = z.array(z.enum(CHANNELS)).min(1).max(CHANNELS.length);

/** Body of `POST /api/AlphaName/sms/application` (ExternalCreateAlphaNameApplicationDto). */
export const alphaNameApplicationSchema = z.strictObject({
  alphaName: alphaNameSchema,
  channels: channelsSchema.optional().meta({ description: 'Channels to approve the name on', default: ['sms'] }),
  companyName: z.string().trim().min(1).max(200).meta({ description: 'Legal name of the company the sender belongs to' }),
  taxId: z.string().trim().min(1).max(32).optional(),
  description: z.string().trim().min(1).max(1000).meta({ description: 'What the name is used for' }),
  sampleText: z.string().max(1000).optional().meta({ description: 'A typical message' }),
  website: z.url({ protocol: /^https?$/ }).optional(),
});

/** Body of `POST /bots/application` (NewExternalBotApplication). */
export const botApplicationSchema = z.strictObject({
  botName: z.string().trim().min(1).max(64),
  kind: z
    .enum(['chatapp_bot', 'messenger_bot'])
    .meta({ description: 'Chat-app bot (`X-Viber-Auth-Token`) or messenger bot (`X-Tg-Bot-Key`)' }),
  companyName: z.string().trim().min(1).max(200),
  description: z.string().trim().min(1).max(1000),
  botUrl: z
    .url({ protocol: /^https?$/ })
    .optional()
    .meta({ description: 'Public link of the bot' }),
});

/** Body of the admin decision on an application. */
export const applicationDecisionSchema = z
  .strictObject({
    status: z.enum(['approved', 'rejected']),
    reason: z.string().trim().min(1).max(1000).optional(),
  })
  .refine((d) => d.status === 'approved' || d.reason !== undefined, { message: 'a rejection needs a reason', path: ['reason'] });

// Wallets count in millionths: a finer amount would be rounded, the client told one amount and given another.
const inMillionths = (v: number): boolean => {
  const micros = v * 1e6;
  return Math.abs(micros - Math.round(micros)) <= Math.max(1e-6, micros * 1e-12);
};
const MILLIONTHS = 'at most 6 decimal places (wallets count in millionths)';

const loginSchema = z
  .string()
  .min(3)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._@-]*$/, 'letters, digits and . _ @ - only');

/** Body of `POST /api/client/provision` (CreateExternalClientDTO). */
export const provisionClientSchema = z.strictObject({
  login: loginSchema,
  password: z.string().min(MIN_PASSWORD_LENGTH).max(256),
  name: z.string().trim().min(1).max(200).optional(),
  balance: z
    .number()
    .nonnegative()
    .max(1e9)
    .refine(inMillionths, MILLIONTHS)
    .optional()
    .meta({ description: 'Moved from the parent wallet, currency units (at most 6 decimal places)', default: 0 }),
  alphaNames: z.array(alphaNameSchema).max(100).optional().meta({ description: 'Approved alpha-names of the parent to share' }),
});

/** Body of `POST /api/client/clients/{clientId}/transfer`: money between the caller and one of its sub-clients. */
export const clientTransferSchema = z.strictObject({
  amount: z
    .number()
    .positive()
    .max(1e9)
    .refine(inMillionths, MILLIONTHS)
    .meta({ description: 'Currency units, more than 0, at most 6 decimal places', examples: [25.5] }),
  direction: z
    .enum(['to_client', 'from_client'])
    .default('to_client')
    .meta({ description: '`to_client` moves the caller’s money to the sub-client; `from_client` takes the sub-client’s back' }),
});

/**
 * The `Idempotency-Key` of a transfer or a provisioning: 1 to 255 visible ASCII characters (a
 * UUID, say), chosen by the client for one request and sent again with each retry of it.
 */
export const idempotencyKeySchema = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/, '1 to 255 visible ASCII characters (letters, digits, punctuation; no spaces)')
  .meta({
    description: 'A key of the client for this one request, sent again with each retry of it',
    examples: ['7f9c2e1a-5b1d-4c55-9a41-0d2f6f0b8e3a'],
  });

/** Checks a request's `Idempotency-Key` ({@link idempotencyKeySchema}): a 400 at `idempotencyKey` otherwise. */
export function checkIdempotencyKey(key: string): void {
  const parsed = idempotencyKeySchema.safeParse(key);
  if (!parsed.success) {
    throw new SpillwayError('validation_failed', 'Invalid idempotency key', issuesToDetails(parsed.error.issues, 'idempotencyKey'));
  }
}

/** Body of `POST /api/client/clients/{clientId}/keys`: a new API key of a sub-client. */
export const clientKeyRequestSchema = z.strictObject({
  label: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .optional()
    .meta({ description: 'A name to recognise the key by in listings', default: 'default', examples: ['pos-terminal-3'] }),
});

/** Body of the operator's revocation of an alpha-name. */
export const alphaNameRevocationSchema = z.strictObject({
  // Any approved name: names approved by configuration or the CLI may be longer than an SMS sender id.
  alphaName: z.string().min(1).max(64),
  reason: z.string().trim().min(1).max(1000).meta({ description: 'Why: shown to the account with the revoked application' }),
  channels: channelsSchema.optional().meta({
    description:
      'Withdraw the name from these channels only (each one the name has): it stays approved on the others, and is revoked ' +
      'entirely when none is left. Omitted: every channel',
    examples: [['sms']],
  }),
});

/** Body of `POST /admin/accounts/{accountId}/bots/revoke`: an operator revokes an approved bot of the account. */
export const botRevocationSchema = z.strictObject({
  // Trimmed as the application's `botName` is: the name revoked is the name approved.
  botName: z.string().trim().min(1).max(64),
  kind: z
    .enum(['chatapp_bot', 'messenger_bot'])
    .optional()
    .meta({ description: 'Only the bot of this kind; omitted: the bots of the name of both kinds' }),
  reason: z.string().trim().min(1).max(1000).meta({ description: 'Why: shown to the account with the revoked application' }),
});

/** A phone number to reach a client or an organization at: international, a leading `+` allowed. */
const contactPhone = z.string().regex(/^\+?[0-9]{7,15}$/, 'international phone number');

/** Body of `POST /api/client/{referralId}` (ReferralClientDTO). */
export const referralClientSchema = z.strictObject({
  login: loginSchema,
  password: z.string().min(MIN_PASSWORD_LENGTH).max(256),
  name: z.string().trim().min(1).max(200).optional(),
  email: z.email().optional(),
  phone: contactPhone.optional(),
});

/** Body of `POST /organizations` (AddOrganizationDTO) and `POST /api/client/organization`. */
export const organizationRequestSchema = z.strictObject({
  name: z.string().trim().min(1).max(300),
  taxId: z
    .string()
    .regex(/^[0-9A-Za-z-]{4,32}$/, '4 to 32 letters, digits or -')
    .meta({ description: 'Tax identification number, unique per account' }),
  address: z.string().trim().min(1).max(500).optional(),
  email: z.email().optional(),
  phone: contactPhone.optional(),
});

/** A validated alpha-name application (see {@link alphaNameApplicationSchema}). */
export type AlphaNameApplicationRequest = z.infer<typeof alphaNameApplicationSchema>;
/** A validated bot application (see {@link botApplicationSchema}). */
export type BotApplicationRequest = z.infer<typeof botApplicationSchema>;
/** A validated decision on an application (see {@link applicationDecisionSchema}). */
export type ApplicationDecision = z.infer<typeof applicationDecisionSchema>;
/** A validated sub-client to create (see {@link provisionClientSchema}). */
export type ProvisionClientRequest = z.infer<typeof provisionClientSchema>;
/** A validated new API key of a sub-client (see {@link clientKeyRequestSchema}). */
export type ClientKeyRequest = z.infer<typeof clientKeyRequestSchema>;
/** A validated transfer between a parent and its sub-client (see {@link clientTransferSchema}). */
export type ClientTransferRequest = z.infer<typeof clientTransferSchema>;
/** A validated revocation of an alpha-name (see {@link alphaNameRevocationSchema}). */
export type AlphaNameRevocationRequest = z.infer<typeof alphaNameRevocationSchema>;
/** A validated revocation of a bot (see {@link botRevocationSchema}). */
export type BotRevocationRequest = z.infer<typeof botRevocationSchema>;
/** A validated referral client (see {@link referralClientSchema}). */
export type ReferralClientRequest = z.infer<typeof referralClientSchema>;
/** A validated organization (see {@link organizationRequestSchema}). */
export type OrganizationRequest = z.infer<typeof organizationRequestSchema>;

/** Parses a request body with `schema`, or throws `validation_failed` listing every bad path. */
export function parseRequest<S extends z.ZodType>(schema: S, body: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new SpillwayError('validation_failed', `Invalid ${what}`, issuesToDetails(parsed.error.issues));
  return parsed.data;
}

const phoneSchema = z
  .string()
  .transform((s) => s.replace(/[\s()+-]/g, ''))
  .pipe(z.string().regex(/^[1-9][0-9]{6,14}$/, 'must be an international number: 7 to 15 digits, country code first'));

/** Body of `PUT /chat_bot/bot_receiver/phone` (UpdateBotReceiverPhone). */
export const botReceiverRequestSchema = z.strictObject({
  phoneNumber: phoneSchema,
  // An integer, as `messengerMessage.chatId` (interface 2.6): Telegram's ids have at most 52
  // significant bits, so a JSON number carries them exactly. Digits are taken too, stored as the
  // number's own digits, so that `"0012"` and `12` are one chat.
  chatId: z
    .union([z.string().regex(/^-?[0-9]{1,16}$/, 'a numeric chat id'), z.int()])
    .transform(Number)
    .pipe(z.int('a chat id is an integer from -(2^53 - 1) to 2^53 - 1'))
    .transform(String)
    .meta({ description: 'The messenger chat id, an integer (digits in a string are taken too)' }),
  botName: z.string().trim().max(64).default('').meta({ description: 'Which of the account’s bots; empty for its only one' }),
});

/**
 * Body of `DELETE /chat_bot/bot_receiver/phone`: the binding as the PUT names it, (botName,
 * phoneNumber); with the PUT's `chatId`, only while the number is still bound to that chat.
 */
export const botReceiverRemovalSchema = botReceiverRequestSchema.partial({ chatId: true });

/** Body of `POST /api/myCodeBot/sendChatMessage` (MyCodeBotChatappRequest). */
export const botChatMessageSchema = z.strictObject({
  phoneNumber: phoneSchema,
  text: z.string().min(1).max(4096).meta({ description: 'May use `%member%` of the number’s per-phone data' }),
  fromName: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .optional()
    .meta({ description: 'Approved alpha-name of the account; may be left out when the account has exactly one' }),
  botName: z.string().trim().max(64).default(''),
  buttons: z
    .array(z.strictObject({ text: z.string().min(1).max(64), action: z.string().min(1).max(2048) }))
    .max(24)
    .optional(),
});

/** Item of `POST /api/external-data/user-bonuses` (UserBonusDataDto): the phone number and any data members. */
export const userBonusItemSchema = z
  .looseObject({
    phoneNumber: phoneSchema,
    bonus: z.number().nullable().optional().meta({ description: 'Used as `%bonus%`; null removes it' }),
  })
  .meta({
    description:
      'Every member besides phoneNumber becomes a variable of the number. Merged into the number’s data: the members given ' +
      'replace its own, null removes one, the others stay.',
  });

/** Body of `POST /api/external-data/user-bonuses`. */
export const userBonusBulkSchema = z.array(userBonusItemSchema).min(1).max(10_000);

/** Body of `POST /api/external-data/user-bonuses/{phoneNumber}`: any JSON object, merged into the number's data. */
export const phoneDataObjectSchema = z
  .record(z.string(), z.unknown())
  .meta({ description: 'Merged into the number’s data: the members given replace its own, null removes one, the others stay.' });

/** Largest JSON of one number's data, bytes. */
export const MAX_PHONE_DATA_BYTES = 16 * 1024;

/** Path parameter of a phone number. */
export const phoneNumberParamSchema = phoneSchema;

/** A phone number given as a path parameter, read by {@link phoneNumberParamSchema}; a `validation_failed` error at `phoneNumber` when it is none. */
export function readPhoneNumberParam(raw: string): string {
  const parsed = phoneNumberParamSchema.safeParse(raw);
  if (!parsed.success) {
    throw new SpillwayError('validation_failed', 'Invalid phone number', [
      { path: 'phoneNumber', message: parsed.error.issues[0]?.message ?? 'invalid' },
    ]);
  }
  return parsed.data;
}

/** What a `to` of neither accepted form is told: zod's union says only "Invalid input". */
const EMAIL_TO = 'to must be an e-mail address or a list of 1 to 50 e-mail addresses';
const emailAddress = z.email('must be an e-mail address');

/** Body of `POST /api/email/send` (SendEmailRequest). */
export const sendEmailSchema = z
  .strictObject({
    to: z
      .union([emailAddress, z.array(emailAddress).min(1, EMAIL_TO).max(50, EMAIL_TO)], { error: EMAIL_TO })
      .transform((v) => (Array.isArray(v) ? v : [v])),
    subject: z.string().min(1).max(998),
    text: z.string().max(1_000_000).optional(),
    html: z.string().max(1_000_000).optional(),
    replyTo: emailAddress.optional(),
  })
  .refine((e) => e.text !== undefined || e.html !== undefined, { message: 'give text or html', path: ['text'] });

/** A validated bot receiver binding (see {@link botReceiverRequestSchema}). */
export type BotReceiverRequest = z.infer<typeof botReceiverRequestSchema>;
/** A validated bot receiver removal (see {@link botReceiverRemovalSchema}). */
export type BotReceiverRemovalRequest = z.infer<typeof botReceiverRemovalSchema>;
/** A validated bot chat message (see {@link botChatMessageSchema}). */
export type BotChatMessageRequest = z.infer<typeof botChatMessageSchema>;
/** A validated e-mail to send (see {@link sendEmailSchema}). */
export type SendEmailRequest = z.infer<typeof sendEmailSchema>;
