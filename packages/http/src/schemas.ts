import { DELIVERY_STATUSES, messageItemSchema } from '@spillway/core';
import type { MessageType } from '@spillway/core';
import { z } from 'zod';

// Response schemas of the messaging API, for the OpenAPI document. They mirror the types of
// @spillway/core types/api.ts, whose field names are the interface's own (`partscount`, ...).

/** The JSON error body. */
export const errorBodySchema = z.object({
  error: z.string().meta({ description: 'Machine-readable code, e.g. validation_failed' }),
  message: z.string(),
  status: z.int(),
  details: z.array(z.object({ path: z.string().meta({ examples: ['messages[3].to'] }), message: z.string() })).optional(),
});

/** Item of the send response (interface 2.4). */
export const sentMessageSchema = z.object({
  messageId: z.int(),
  from: z.string(),
  to: z.string(),
  text: z.string(),
  dtExpire: z.iso.datetime().nullable(),
  customerMessageId: z.string().nullable(),
  partsCount: z.int(),
  type: z.string(),
});

/** The send response (interface 2.4). */
export const sendResponseSchema = z.object({ messagelistId: z.int(), messages: z.array(sentMessageSchema) });

const historyStatus = z.enum(['Sent', 'Delivered', 'Read', 'Failed', 'Expired', 'Skipped', 'Superseded', 'Cancelled', 'Clicked']);
const deliveryStatus = z.enum(DELIVERY_STATUSES);

/** One entry of `extendedStatuses`. */
export const extendedStatusSchema = z.object({
  status: historyStatus,
  channel: z.string(),
  attempt: z.int().meta({ description: '0 the primary, 1.. the fallbacks' }),
  type: z.string(),
  dt: z.iso.datetime(),
  error: z.string().nullable(),
  driver: z.string().nullable().meta({
    description: 'Spillway addition: the driver that carried the attempt (with a failover, the provider) or reported it; null for skips',
  }),
});

/** The status of one fallback. */
export const fallbackStatusSchema = z.object({
  from: z.string(),
  to: z.string(),
  type: z.string(),
  text: z.string(),
  deliverystatus: deliveryStatus.nullable(),
  partsCount: z.int(),
  cost: z.number(),
  extendedStatuses: z.array(extendedStatusSchema),
});

/** The message status record (interface 2.5). */
export const messageStatusSchema = z.object({
  messagelistId: z.int(),
  messageId: z.int(),
  deliverystatus: deliveryStatus,
  partscount: z.int(),
  cost: z.number(),
  customerMessageId: z.string().nullable(),
  type: z.string(),
  from: z.string(),
  to: z.string(),
  dtExpire: z.iso.datetime().nullable(),
  fallbacks: z.array(fallbackStatusSchema).optional(),
  extendedStatuses: z.array(extendedStatusSchema),
  partsCount: z.int(),
  rate: z.number(),
  rateAmount: z.number(),
  rateCurrency: z.string(),
  billAmount: z.number(),
  billCurrency: z.string(),
});

/** `GET /bat/balance`. */
export const balanceSchema = z.object({ balance: z.number(), currency: z.string() });

/** `GET /api/account` (a Spillway extension): the account the request's credentials sign in to. */
export const accountSchema = z.object({
  clientId: z.int(),
  login: z.string(),
  name: z.string(),
  currency: z.string(),
});

/** One wallet transaction of `GET /api/AlphaName/wallet/info`, amounts in currency units. */
export const walletItemSchema = z.object({
  id: z.int(),
  transactionType: z.enum(['topup', 'charge', 'refund', 'adjustment']),
  amount: z.number().meta({ description: 'Signed, in currency units: negative for charges' }),
  balanceAfter: z.number(),
  currency: z.string(),
  messageId: z.int().nullable(),
  description: z.string(),
  counterpartAccountId: z
    .int()
    .nullable()
    .meta({
      description:
        'The other account of a move between two (a transfer between a parent and its sub-client, a sub-client’s opening ' +
        'balance): the parent’s entry names the client, the client’s names the parent. Null otherwise',
    }),
  dt: z.iso.datetime(),
});

/** `GET /api/AlphaName/wallet/info`. */
export const walletHistorySchema = z.object({
  items: z.array(walletItemSchema),
  total: z.int(),
  page: z.int(),
  pageSize: z.int(),
});

/** Body of `PUT /api/AlphaName/callback`: `url: null` removes the callback. */
export const alphaNameCallbackRequestSchema = z.object({
  alphaName: z.string().min(1).max(64),
  url: z
    .url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' })
    .max(2048)
    .nullable(),
});

/** An alpha-name as answered by the API. */
export const alphaNameSchema = z.object({
  alphaName: z.string(),
  channels: z.array(z.string()),
  callbackUrl: z.string().nullable(),
});

/** `GET /health`. */
export const healthSchema = z.object({
  status: z.literal('ok'),
  workers: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      'Workers heard from on the database within the last 5 s, as counted at most a second ago: 0 means that what is accepted waits, unsent, until a worker runs (a server that counts them, such as the reference server, says it)',
    ),
});

type MessageVariant = (typeof messageItemSchema.options)[number];
const typeOf = (variant: MessageVariant): string => (variant.shape.type as z.ZodLiteral<string>).value;

/** The message of `type` with its `type` optional: what a single-message route reads when the body leaves it out. */
function withTypeLeftOut(type: MessageType): z.ZodType {
  const variant = messageItemSchema.options.find((v) => typeOf(v) === type);
  if (!variant) throw new Error(`no message type ${type}`);
  return (variant as z.ZodObject).extend({ type: z.literal(type).optional() });
}

/**
 * Body of `POST /api/GMSMessage/send_message` (GMSSendMessageReq): one message of the messaging
 * API, whose `type` may be left out for an SMS (the route's default). Documentation only, as
 * every body: the route sends it through the engine.
 */
export const singleMessageRequestSchema = z.union([withTypeLeftOut('sms'), messageItemSchema]);

/**
 * Body of `POST /ip2sms/chatapp_mess` (ChatappMessageDTO): one message of a `chatapp_*` type,
 * `chatapp_service` when `type` is left out (the route's default); other types are refused.
 */
export const chatappSingleMessageRequestSchema = z.union([
  withTypeLeftOut('chatapp_service'),
  ...messageItemSchema.options.filter((v) => typeOf(v).startsWith('chatapp_')),
]);
