import { z } from 'zod';
import { SpillwayError } from '../errors.ts';
import type { ErrorDetail } from '../errors.ts';
import { isoTimeSchema } from '../iso-time.ts';
import { inlineVariablesSchema } from './variables.ts';
import type { Variable } from './variables.ts';
import { issuesToDetails } from '../validation/issue-details.ts';
import { addNearMisses, knownMembers, refusingNearMisses } from '../validation/near-miss.ts';
import type { KnownMembers } from '../validation/near-miss.ts';
import { MAX_WAIT_SECONDS, WAIT_BOUNDS, wholeSeconds } from '../validation/whole-seconds.ts';

/** `messageType` of a cascade message (interface 2.6). */
export const CASCADE_MESSAGE_TYPES = ['transaction', 'promo', 'chatapp_survey', 'flashcall'] as const;
/** One of {@link CASCADE_MESSAGE_TYPES}. */
export type CascadeMessageType = (typeof CASCADE_MESSAGE_TYPES)[number];

/** Most cascade messages in one request, as for `/bat/messagelist`. */
export const MAX_CASCADE_MESSAGES = 5000;
/** Longest ttl accepted, seconds (30 days). */
export const MAX_CASCADE_TTL = MAX_WAIT_SECONDS;
/** Furthest ahead a cascade may be scheduled (one year). */
const MAX_SCHEDULE_MS = 366 * 86400_000;

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });
/** Whole seconds within the ttl bounds, every bad value told the bounds in one message (see `wholeSeconds`). */
const ttlSeconds = (error: string) => wholeSeconds(MAX_CASCADE_TTL, error);
const TTL_LIKE = `must be ${WAIT_BOUNDS}, as an integer or its digits as a string`;
/** A cascade ttl as the interface's examples carry it: an integer, or its digits as a string. */
const ttlLike = z
  .union([z.number(), z.string().regex(/^\d+$/, { error: TTL_LIKE }).transform(Number)], { error: TTL_LIKE })
  .pipe(ttlSeconds(TTL_LIKE));
/** `sheduledSent`: a time without an offset is refused, as the messaging API's `scheduledAt` is. */
const sheduledSent = isoTimeSchema({ withoutOffset: 'refuse' });
const stringLike = z.union([z.string(), z.number().transform(String)], { error: 'must be a string or a number' });
/**
 * Loose objects keep members the schema does not name (vendors add fields): their whole size is
 * bounded instead, so that nothing the API stores is unbounded.
 */
const withinJson = (max: number) => (value: unknown) => JSON.stringify(value).length <= max;
const tooLarge = (max: number) => ({ message: `must be at most ${max} characters as JSON` });
/** Largest route revision: PostgreSQL keeps revisions in a 32-bit `integer` column. */
const MAX_ROUTE_REVISION = 2_147_483_647;
const ROUTE_FORMAT = 'must be a route id, or id@revision for one revision (such as "default" or "rt_…@2")';
/**
 * `route` of a cascade message (a Spillway extension): the route to run it on instead of the one
 * bound to its alpha-name, read once into its id and revision ({@link NamedRoute}). Only its form
 * is checked here; the engine checks the route exists.
 */
const cascadeRouteSchema = z
  .string({ error: ROUTE_FORMAT })
  .regex(/^[^@]{1,100}(@[1-9]\d{0,9})?$/, { error: ROUTE_FORMAT })
  .meta({ examples: ['messenger-first', 'rt_0b6c9a54-3a8e-4f7e-9d7c-5f3c2a1b0e9d@2'] })
  .transform((ref, ctx): NamedRoute => {
    // The form is checked: the last `@`, if any, starts the revision.
    const at = ref.lastIndexOf('@');
    if (at < 0) return { ref, id: ref, revision: null };
    const revision = Number(ref.slice(at + 1));
    if (revision > MAX_ROUTE_REVISION) {
      ctx.addIssue({ code: 'custom', message: `the revision must be at most ${MAX_ROUTE_REVISION}` });
      return z.NEVER;
    }
    return { ref, id: ref.slice(0, at), revision };
  });

/** Bounds of what a cascade message may carry. */
export const CASCADE_LIMITS = { customerData: 4096, chatappMessage: 65_536, messengerMessage: 32_768 } as const;

/** Members the interface spells as no user would (interface 2.6): a near miss of one is told so. */
const SPELLED_ODDLY = ['sheduledSent', 'wheterCheckSession'];

const chatappMessageShape = {
  receiver: z.string().max(100).optional(),
  minApiVersion: z.number().int().optional(),
  type: z.string().max(32).optional(),
  sender: z.looseObject({ name: z.string().max(64).optional(), avatar: httpUrl.max(2048).optional() }).optional(),
  text: z.string().max(4096).optional(),
  media: httpUrl.max(2048).optional(),
  keyboard: z
    .looseObject({
      type: z.string().max(32).optional(),
      defaultHeight: z.boolean().optional(),
      buttons: z
        .array(
          z.looseObject({
            actionType: z.string().max(32).optional(),
            actionBody: z.string().max(1024).optional(),
            text: z.string().max(250).optional(),
            textSize: z.string().max(16).optional(),
          }),
        )
        .max(24)
        .optional(),
    })
    .optional(),
  fallbackText: z.string().max(4096).optional(),
  ttl: ttlSeconds(`must be ${WAIT_BOUNDS}`).optional(),
  // Survey options are free text, emoji included; 2-10 like the messaging API (a poll needs a choice).
  survey: z.looseObject({ options: z.array(z.string().trim().min(1).max(100)).min(2).max(10) }).optional(),
};
/**
 * `chatappMessage` of a cascade message: the chat-app content (text, media, buttons, survey, template).
 * Members it does not name are kept (they reach the chat-app channel), but a near miss of one it
 * names (`Text`, `fallbackTxt`) is refused. `keyboard` goes to the vendor as written, in the
 * vendor's spelling (Viber's `Buttons`): its members are not looked at.
 */
export const chatappMessageSchema = refusingNearMisses(
  z.looseObject(chatappMessageShape).refine(withinJson(CASCADE_LIMITS.chatappMessage), tooLarge(CASCADE_LIMITS.chatappMessage)),
  knownMembers(Object.keys(chatappMessageShape)),
);

const messengerMessageShape = {
  text: z.string().max(4096).optional(),
  photoUrl: httpUrl.max(2048).optional(),
  chatId: z.number().int().optional(),
  buttons: z
    .array(z.looseObject({ action: z.string().max(1024), text: z.string().max(250) }))
    .max(24)
    .optional(),
};
/**
 * `messengerMessage` of a cascade message: the messenger bot content (text, photo, buttons). Members
 * it does not name are kept, but a near miss of one it names (`chat_id`) is refused; `botName`
 * (which of the account's bots, read by the engine) is one of those.
 */
export const messengerMessageSchema = refusingNearMisses(
  z.looseObject(messengerMessageShape).refine(withinJson(CASCADE_LIMITS.messengerMessage), tooLarge(CASCADE_LIMITS.messengerMessage)),
  knownMembers([...Object.keys(messengerMessageShape), 'botName']),
);

/**
 * An optional member sent as `null` is taken as absent, as the messaging API takes it: clients
 * that serialize every member of their request class send `"sheduledSent": null`.
 */
const absent = <T>(value: T | null | undefined): T | undefined => value ?? undefined;

/** `route` of a cascade message as the OpenAPI document describes it, where it is absent or null alike. */
const namedRouteMember = cascadeRouteSchema
  .nullish()
  .meta({
    description:
      'A Spillway extension (not in interface 2.6): the route to run this message on, instead of the one bound to its alpha-name ' +
      "(or the account default). The id of one of the account's routes or of a built-in one (`default`, `messenger-first`, `flashcall`) " +
      'runs its latest revision; `id@revision` runs that revision (status records name routes so). ' +
      "An unknown route or revision is refused (400 at the message's `route`).",
  })
  .transform(absent);

/** One cascade message of the array shape (interface 2.6), plus Spillway's `text`, `variables` and `route`. */
export const cascadeItemSchema = z
  .object({
    id: stringLike.pipe(z.string().min(1).max(100)).nullish().transform(absent),
    fromName: z.string().trim().min(1).max(64).nullish().transform(absent),
    toPhone: stringLike
      .transform((s) => s.replace(/^\+/, ''))
      .pipe(z.string().regex(/^[1-9]\d{6,14}$/, 'must be an E.164 number: 7 to 15 digits, country code first')),
    messageType: z
      .enum(CASCADE_MESSAGE_TYPES)
      .nullable()
      .default('transaction')
      .transform((v) => v ?? 'transaction'),
    /** Spillway: the text for every channel without its own (`chatappMessage.text`, ...). */
    text: z.string().max(4096).nullish().transform(absent),
    ttl: ttlLike.nullish().transform(absent),
    sheduledSent: sheduledSent.nullish().transform(absent),
    wheterCheckSession: z.boolean().nullish().transform(absent),
    buttonText: z.string().trim().min(1).max(100).nullish().transform(absent),
    buttonAction: httpUrl.max(2048).nullish().transform(absent),
    flashcallText: stringLike
      .pipe(z.string().regex(/^\d{1,10}$/, 'must be the code: 1 to 10 digits'))
      .nullish()
      .transform(absent),
    customerData: z
      .looseObject({ type: z.string().max(64) })
      .refine(withinJson(CASCADE_LIMITS.customerData), tooLarge(CASCADE_LIMITS.customerData))
      .nullish()
      .transform(absent),
    chatappMessage: chatappMessageSchema.nullish().transform(absent),
    messengerMessage: messengerMessageSchema.nullish().transform(absent),
    /** Spillway: values of this message's variables, before stored ones (the overview's `variables`). */
    variables: inlineVariablesSchema.nullish().transform(absent),
    /** Spillway: the route to run on, instead of the alpha-name's (see {@link cascadeRouteSchema}). */
    route: namedRouteMember,
  })
  .superRefine((m, ctx) => {
    const need = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message });
    if (m.messageType === 'promo') {
      if (!m.buttonText) need(['buttonText'], 'a promo message needs buttonText');
      if (!m.buttonAction) need(['buttonAction'], 'a promo message needs buttonAction');
    } else if (Boolean(m.buttonText) !== Boolean(m.buttonAction)) {
      need([m.buttonText ? 'buttonAction' : 'buttonText'], 'buttonText and buttonAction go together');
    }
    if (m.messageType === 'chatapp_survey' && !m.chatappMessage?.survey) {
      need(['chatappMessage', 'survey', 'options'], 'a chatapp_survey message needs chatappMessage.survey.options');
    }
    if (m.messageType === 'flashcall') {
      if (!m.flashcallText) need(['flashcallText'], 'a flashcall message needs flashcallText');
    } else {
      const c = m.chatappMessage;
      const content = m.text || c?.text || c?.media || c?.fallbackText || m.messengerMessage?.text || m.messengerMessage?.photoUrl;
      if (!content) need(['text'], 'the message has no content: give text, chatappMessage.text or messengerMessage.text');
    }
  });

/**
 * Members of a cascade message. `cascadeItemSchema` drops the members it does not name: a near miss
 * of one is refused by `parseCascadeRequest` (see `addNearMisses`), not by the schema, whose
 * OpenAPI description stays that of a plain object.
 */
export const cascadeItemMembers: KnownMembers = knownMembers(Object.keys(cascadeItemSchema.shape), SPELLED_ODDLY);

/** A cascade message as a client writes it (the input of {@link cascadeItemSchema}). */
export type CascadeItem = z.input<typeof cascadeItemSchema>;
/** A validated `chatappMessage` (see {@link chatappMessageSchema}). */
export type ChatappMessage = z.infer<typeof chatappMessageSchema>;
/** A validated `messengerMessage` (see {@link messengerMessageSchema}). */
export type MessengerMessage = z.infer<typeof messengerMessageSchema>;

/** Top-level members of the overview shape, the defaults of its messages. */
const overviewSchema = z.object({
  fromName: z.string().trim().min(1).max(64).nullish().transform(absent),
  messageType: z.enum(CASCADE_MESSAGE_TYPES).nullish().transform(absent),
  ttl: ttlLike.nullish().transform(absent),
  sheduledSent: sheduledSent.nullish().transform(absent),
  route: namedRouteMember,
  messages: z
    .array(z.looseObject({ recipient: stringLike.pipe(z.string().max(32)), text: z.string().max(4096).optional() }))
    .min(1)
    .max(MAX_CASCADE_MESSAGES),
});
/** Members of the overview shape's top level, and of its messages (a cascade message's, `recipient` for `toPhone`). */
const overviewMembers = knownMembers(Object.keys(overviewSchema.shape), SPELLED_ODDLY);
const overviewMessageMembers = knownMembers(
  [...cascadeItemMembers.names].map((name) => (name === 'toPhone' ? 'recipient' : name)),
  SPELLED_ODDLY,
);

/** A cascade message, validated and normalized. */
export interface ValidatedCascade {
  /** Index in the request. */
  index: number;
  /** Path of the item in the request (`[3]`, `messages[3]`), to address later errors. */
  path: string;
  /** The client's `id`, answered as `trackinId`. */
  trackinId: string | null;
  fromName: string;
  /** Digits only, country code first. */
  toPhone: string;
  messageType: CascadeMessageType;
  text: string | null;
  /** Seconds. */
  ttl: number | null;
  /** `sheduledSent` in ms since the epoch. */
  scheduledAt: number | null;
  checkSession: boolean;
  buttonText: string | null;
  buttonAction: string | null;
  flashcallText: string | null;
  customerData: Record<string, unknown> | null;
  chatappMessage: ChatappMessage | null;
  messengerMessage: MessengerMessage | null;
  /** Inline variables of this message; they win over the account's stored ones. */
  variables: Variable[];
  /** The route named by the message (`route`), to run instead of the alpha-name's; null when it names none. */
  route: NamedRoute | null;
}

/** A route named by a cascade message: `id`, or `id@revision`. */
export interface NamedRoute {
  /** As the message wrote it, to name it in errors. */
  ref: string;
  id: string;
  /** Null: the latest. */
  revision: number | null;
}

/** Options of {@link parseCascadeRequest}. */
export interface ParseCascadeOptions {
  /** Ms since the epoch: bounds `sheduledSent`. */
  now: number;
  /** Alpha-name for messages that name none (the engine passes the account's only one). */
  defaultFromName?: string | undefined;
  /** Without a default: the account's alpha-names, named in the error of a message that names none. */
  alphaNames?: readonly string[] | undefined;
}

/**
 * Validates a cascade request in either shape of interface 4.2: the array of cascade messages
 * (a lone object is taken as an array of one), or the overview `{ messages: [{ recipient, text,
 * variables }] }` whose top-level `fromName`, `messageType`, `ttl` and `sheduledSent` apply to
 * every message, as does Spillway's `route` (an item may carry any cascade member itself;
 * `recipient` is its `toPhone`). A member that nearly names a known one (`scheduledSent` for
 * `sheduledSent`, `FromName`) is refused; any other unknown member is ignored.
 * @throws SpillwayError `validation_failed` listing every bad item (`[3].toPhone`, `messages[0].recipient`).
 */
export function parseCascadeRequest(body: unknown, options: ParseCascadeOptions): ValidatedCascade[] {
  const fail = (details: ErrorDetail[]) => new SpillwayError('validation_failed', 'The cascade request is invalid', details);
  const errors: ErrorDetail[] = [];
  // `members`: the item's members are to be looked at for near misses (the overview's were already).
  let items: { path: string; value: unknown; rename?: Record<string, string>; members?: KnownMembers }[];
  if (Array.isArray(body) || (body !== null && typeof body === 'object' && !('messages' in body))) {
    const list: unknown[] = Array.isArray(body) ? body : [body];
    if (list.length === 0 || list.length > MAX_CASCADE_MESSAGES) {
      throw fail([{ path: '(body)', message: `must hold 1 to ${MAX_CASCADE_MESSAGES} messages` }]);
    }
    items = list.map((value, i) => ({ path: `[${i}]`, value, members: cascadeItemMembers }));
  } else {
    // Near misses of the members of the top level and of the messages, told beside any other error.
    addNearMisses(body, overviewMembers, '', errors);
    const given = (body as { messages?: unknown } | null)?.messages;
    if (Array.isArray(given) && given.length <= MAX_CASCADE_MESSAGES) {
      given.forEach((message, i) => addNearMisses(message, overviewMessageMembers, `messages[${i}]`, errors));
    }
    const parsed = overviewSchema.safeParse(body);
    if (!parsed.success) throw fail([...issuesToDetails(parsed.error.issues), ...errors]);
    const { messages, ...defaults } = parsed.data;
    // Each item reads sheduledSent and route again: it gets their text, checked once above, not what was read from it.
    const { sheduledSent, route } = body as { sheduledSent?: unknown; route?: unknown };
    const shared = { ...defaults, sheduledSent, route };
    items = messages.map(({ recipient, ...rest }, i) => ({
      path: `messages[${i}]`,
      value: { ...shared, ...rest, toPhone: recipient },
      rename: { toPhone: 'recipient' },
    }));
  }

  const out: ValidatedCascade[] = [];
  // A client id names one message of a request: a repeat would make status_id ambiguous.
  const firstWithId = new Map<string, string>();
  items.forEach((item, index) => {
    const parsed = cascadeItemSchema.safeParse(item.value);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => {
        const [head, ...tail] = issue.path;
        const renamed = typeof head === 'string' ? item.rename?.[head] : undefined;
        return renamed ? { ...issue, path: [renamed, ...tail] } : issue;
      });
      errors.push(...issuesToDetails(issues, item.path));
    }
    if (item.members) addNearMisses(item.value, item.members, item.path, errors);
    if (!parsed.success) return;
    const m = parsed.data;
    if (m.id !== undefined && m.id !== null) {
      const first = firstWithId.get(String(m.id));
      if (first !== undefined)
        errors.push({ path: `${item.path}.id`, message: `id "${m.id}" is already used by ${first} of this request` });
      else firstWithId.set(String(m.id), item.path);
    }
    const fromName = m.fromName ?? options.defaultFromName;
    if (!fromName)
      errors.push({
        path: `${item.path}.fromName`,
        message: options.alphaNames?.length
          ? `fromName is required: the account has several alpha-names (${options.alphaNames.join(', ')})`
          : 'fromName is required (the account has no alpha-name to default to)',
      });
    const scheduledAt = m.sheduledSent ?? null;
    if (scheduledAt !== null && scheduledAt > options.now + MAX_SCHEDULE_MS) {
      errors.push({ path: `${item.path}.sheduledSent`, message: 'must be at most one year ahead' });
    }
    out.push({
      index,
      path: item.path,
      trackinId: m.id ?? null,
      fromName: fromName ?? '',
      toPhone: m.toPhone,
      messageType: m.messageType,
      text: m.text ?? null,
      ttl: m.ttl ?? null,
      scheduledAt,
      checkSession: m.wheterCheckSession ?? false,
      buttonText: m.buttonText ?? null,
      buttonAction: m.buttonAction ?? null,
      flashcallText: m.flashcallText ?? null,
      customerData: m.customerData ?? null,
      chatappMessage: m.chatappMessage ?? null,
      messengerMessage: m.messengerMessage ?? null,
      variables: m.variables ?? [],
      route: m.route ?? null,
    });
  });
  if (errors.length > 0) throw fail(errors);
  return out;
}
