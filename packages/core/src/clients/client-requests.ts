import { z } from 'zod';
import { SpillwayError } from '../errors.ts';
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

const loginSchema = z
  .string()
  .min(3)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._@-]*$/, 'letters, digits and . _ @ - only');

/** Body of `POST /api/client/provision` (CreateExternalClientDTO). */
export const provisionClientSchema = z.strictObject({
  login: loginSchema,
  password: z.string().min(8).max(256),
  name: z.string().trim().min(1).max(200).optional(),
  balance: z.number().nonnegative().max(1e9).optional().meta({ description: 'Moved from the parent wallet, currency units', default: 0 }),
  alphaNames: z.array(alphaNameSchema).max(100).optional().meta({ description: 'Approved alpha-names of the parent to share' }),
});

/** Body of `POST /api/client/{referralId}` (ReferralClientDTO). */
export const referralClientSchema = z.strictObject({
  login: loginSchema,
  password: z.string().min(8).max(256),
  name: z.string().trim().min(1).max(200).optional(),
  email: z.email().optional(),
  phone: z
    .string()
    .regex(/^\+?[0-9]{7,15}$/, 'international phone number')
    .optional(),
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
  phone: z
    .string()
    .regex(/^\+?[0-9]{7,15}$/, 'international phone number')
    .optional(),
});

export type AlphaNameApplicationRequest = z.infer<typeof alphaNameApplicationSchema>;
export type BotApplicationRequest = z.infer<typeof botApplicationSchema>;
export type ApplicationDecision = z.infer<typeof applicationDecisionSchema>;
export type ProvisionClientRequest = z.infer<typeof provisionClientSchema>;
export type ReferralClientRequest = z.infer<typeof referralClientSchema>;
export type OrganizationRequest = z.infer<typeof organizationRequestSchema>;

/** Parses a request body with `schema`, or throws `validation_failed` listing every bad path. */
export function parseRequest<S extends z.ZodType>(schema: S, body: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new SpillwayError('validation_failed', `Invalid ${what}`, issuesToDetails(parsed.error.issues));
  return parsed.data;
}
