import { z } from 'zod';
import type { Engine } from '../engine/engine-types.ts';
import { SpillwayError } from '../errors.ts';
import type { ClientStorage } from '../ports/client-storage.ts';
import type { SendResponse } from '../types/api.ts';
import { issuesToDetails, rethrowAt } from '../validation/issue-details.ts';
import { applyPhoneVariables } from './phone-variables.ts';
// Raw request parameters: the engine validates the messages built from them.
import type { SendMessagesInput } from '../engine/inputs.ts';

/** One message of the classic entry points, as the messaging API's item (interface 2.1). */
type Item = Record<string, unknown> & { to?: unknown; text?: unknown };

/** Parameters of `POST /ip2sms` (form-encoded body or query), classic SMS-gateway names accepted. */
export const ip2smsParamsSchema = z.object({
  from: z.string().min(1).max(64).meta({ description: 'Approved alpha-name (alias `sender`)' }),
  to: z
    .string()
    .min(1)
    .transform((v) => v.split(/[,;\s]+/).filter(Boolean))
    .pipe(z.array(z.string()).min(1).max(5000))
    .meta({ description: 'One or more numbers, comma-separated (alias `phone`)' }),
  text: z.string().min(1).meta({ description: 'Alias `message`' }),
  type: z.string().default('sms'),
  customerMessageId: z.string().min(1).max(100).optional(),
});

/** The classic aliases of the ip2sms parameters: an error names the one the client sent. */
const IP2SMS_ALIASES = { from: 'sender', to: 'phone', text: 'message' } as const;
type Aliased = keyof typeof IP2SMS_ALIASES;

/** The name the client gave each aliased parameter: `sender` for `from` when it sent `sender` alone. */
function namesGiven(params: Record<string, string | undefined>): Record<Aliased, string> {
  const name = (key: Aliased) => (params[key] === undefined && params[IP2SMS_ALIASES[key]] !== undefined ? IP2SMS_ALIASES[key] : key);
  return { from: name('from'), to: name('to'), text: name('text') };
}

/** `path` (`from`, `to[1]`) with its parameter as the client named it (`sender`, `phone[1]`). */
const asGiven = (path: string, names: Record<Aliased, string>): string => path.replace(/^(from|to|text)\b/, (key) => names[key as Aliased]);

/** Reads ip2sms parameters, taking the classic aliases (`sender`, `phone`, `message`). */
export function parseIp2smsParams(params: Record<string, string | undefined>) {
  const parsed = ip2smsParamsSchema.safeParse({
    from: params.from ?? params.sender,
    to: params.to ?? params.phone,
    text: params.text ?? params.message,
    type: params.type || undefined,
    customerMessageId: params.customerMessageId || undefined,
  });
  if (!parsed.success) {
    const names = namesGiven(params);
    const details = issuesToDetails(parsed.error.issues).map((d) => ({ ...d, path: asGiven(d.path, names) }));
    throw new SpillwayError('validation_failed', 'Invalid ip2sms request', details);
  }
  return parsed.data;
}

/** Re-addresses the engine's `messages[0].x` error paths to the single message's `x`. */
const asSingle = (error: unknown): never => rethrowAt(error, (path) => path.replace(/^messages\[0\]\.?/, ''));

/**
 * Re-addresses the engine's `messages[i].x` error paths to the ip2sms parameter `x` as the client
 * named it (`sender` when it sent `sender`, `phone` when it sent `phone`): `to[i]` for the i-th of
 * several recipients, the shared parameters once whatever the number of recipients.
 */
const asParams = (error: unknown, recipients: number, names: Record<Aliased, string>): never =>
  rethrowAt(error, (path) => {
    const [, index, field] = /^messages\[(\d+)\]\.?(.*)$/.exec(path) ?? [];
    if (index === undefined) return path;
    return asGiven(field === 'to' && recipients > 1 ? `to[${index}]` : (field ?? ''), names);
  });

async function withPhoneData(storage: ClientStorage, accountId: number, items: Item[]): Promise<Item[]> {
  return Promise.all(
    items.map(async (item) => {
      if (typeof item.text !== 'string' || !item.text.includes('%') || typeof item.to !== 'string') return item;
      const data = (await storage.getPhoneData(accountId, item.to.replace(/\D/g, '')))?.data;
      return data ? { ...item, text: applyPhoneVariables(item.text, data) } : item;
    }),
  );
}

/**
 * Sends one message given as a messaging API item (`POST /api/GMSMessage/send_message`,
 * `/ip2sms/chatapp_mess`) through the engine: the same validation, limits and billing as
 * `/bat/messagelist`. `%member%` in the text takes the recipient's per-phone data.
 */
export async function sendSingleMessage(
  engine: Engine,
  storage: ClientStorage,
  accountId: number,
  body: unknown,
  options: { defaultType: string; requireTypePrefix?: string },
): Promise<SendResponse> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new SpillwayError('validation_failed', 'The body must be one message object', [
      { path: '(body)', message: 'expected an object' },
    ]);
  }
  const item: Item = { type: options.defaultType, ...(body as Item) };
  if (options.requireTypePrefix && !String(item.type).startsWith(options.requireTypePrefix)) {
    throw new SpillwayError('validation_failed', 'Invalid message', [
      { path: 'type', message: `must be a ${options.requireTypePrefix}* type` },
    ]);
  }
  const [ready] = await withPhoneData(storage, accountId, [item]);
  try {
    return await engine.messages.send(accountId, { messages: [ready] } as SendMessagesInput);
  } catch (error) {
    return asSingle(error);
  }
}

/** `POST /ip2sms`: one SMS (or `type`) per recipient, one campaign. */
export async function sendIp2sms(
  engine: Engine,
  storage: ClientStorage,
  accountId: number,
  params: Record<string, string | undefined>,
): Promise<SendResponse> {
  const p = parseIp2smsParams(params);
  const items = p.to.map((to, i) => ({
    from: p.from,
    to,
    text: p.text,
    type: p.type,
    ...(p.customerMessageId ? { customerMessageId: p.to.length > 1 ? `${p.customerMessageId}-${i + 1}` : p.customerMessageId } : {}),
  }));
  return engine.messages
    .send(accountId, { messages: await withPhoneData(storage, accountId, items) } as SendMessagesInput)
    .catch((error: unknown) => asParams(error, items.length, namesGiven(params)));
}
