import type { StepSpec } from '../types/message.ts';
import type { ChannelId } from '../types/channel.ts';
import type { Account } from '../types/account.ts';
import type { NewLinkedClient } from '../ports/client-storage.ts';
import type {
  ApplicationStatus,
  BotReceiver,
  EmailRecord,
  EmailStatus,
  OAuthState,
  PhoneData,
  SocialConnection,
  ClientLink,
  ClientLinkKind,
  ClientProvisionRecord,
  ClientTransferDirection,
  ClientTransferRecord,
  Organization,
  SenderApplication,
  SenderKind,
  StepActivity,
} from '../types/client.ts';

// Rows of the SQL adapters' client tables, JSON columns already parsed.

/** A `sender_applications` row with `channels` and `details` parsed. */
export interface SenderApplicationRow {
  id: number;
  account_id: number;
  kind: string;
  name: string;
  channels: ChannelId[];
  details: Record<string, unknown>;
  status: string;
  reason: string | null;
  created_at: number;
  decided_at: number | null;
}

/** A sender application from its storage row. */
export function senderApplicationFromRow(row: SenderApplicationRow): SenderApplication {
  return {
    id: row.id,
    accountId: row.account_id,
    kind: row.kind as SenderKind,
    name: row.name,
    channels: row.channels,
    details: row.details,
    status: row.status as ApplicationStatus,
    reason: row.reason,
    createdAt: row.created_at,
    decidedAt: row.decided_at,
  };
}

/** A `client_links` row. */
export interface ClientLinkRow {
  child_id: number;
  parent_id: number;
  kind: string;
  referral_id: string | null;
  created_at: number;
}

/** A client link (sub-client or referral) from its storage row. */
export function clientLinkFromRow(row: ClientLinkRow): ClientLink {
  return {
    childId: row.child_id,
    parentId: row.parent_id,
    kind: row.kind as ClientLinkKind,
    referralId: row.referral_id,
    createdAt: row.created_at,
  };
}

/** A `client_transfers` row. */
export interface ClientTransferRow {
  account_id: number;
  idempotency_key: string;
  client_id: number;
  direction: string;
  amount: number;
  balance: number;
  client_balance: number;
  created_at: number;
}

/** A move between a parent and its sub-client, recorded under the parent's idempotency key, from its storage row. */
export function clientTransferFromRow(row: ClientTransferRow): ClientTransferRecord {
  return {
    accountId: row.account_id,
    idempotencyKey: row.idempotency_key,
    clientId: row.client_id,
    direction: row.direction as ClientTransferDirection,
    amount: row.amount,
    balance: row.balance,
    clientBalance: row.client_balance,
    createdAt: row.created_at,
  };
}

/** A `client_provisions` row with `alpha_names` parsed. */
export interface ClientProvisionRow {
  account_id: number;
  idempotency_key: string;
  client_id: number;
  login: string;
  name: string;
  balance: number;
  alpha_names: Array<{ name: string; channels: ChannelId[] }>;
  key_id: number | null;
  created_at: number;
}

/** A sub-client created under its parent's idempotency key, from its storage row. */
export function clientProvisionFromRow(row: ClientProvisionRow): ClientProvisionRecord {
  return {
    accountId: row.account_id,
    idempotencyKey: row.idempotency_key,
    clientId: row.client_id,
    login: row.login,
    name: row.name,
    balance: row.balance,
    alphaNames: row.alpha_names,
    keyId: row.key_id,
    createdAt: row.created_at,
  };
}

/** An `organizations` row. */
export interface OrganizationRow {
  id: number;
  account_id: number;
  name: string;
  tax_id: string;
  address: string | null;
  email: string | null;
  phone: string | null;
  created_at: number;
}

/** An organization from its storage row. */
export function organizationFromRow(row: OrganizationRow): Organization {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    taxId: row.tax_id,
    address: row.address,
    email: row.email,
    phone: row.phone,
    createdAt: row.created_at,
  };
}

/** The bot named in a bot step's data ('' for none: the account's only bot). */
const botNameOf = (s: StepSpec): string => (typeof s.messageData?.['botName'] === 'string' ? (s.messageData['botName'] as string) : '');

/**
 * Flattens messages (their steps parsed) and their history rows into one activity per attempt.
 * History rows must come in order; statuses keep that order.
 */
export function stepActivitiesOf(
  messages: Array<{ id: number; steps: StepSpec[]; created_at: number }>,
  history: Array<{ message_id: number; step: number; status: string }>,
): StepActivity[] {
  const statuses = new Map<string, string[]>();
  for (const h of history) {
    const key = `${h.message_id}:${h.step}`;
    const list = statuses.get(key);
    if (list) list.push(h.status);
    else statuses.set(key, [h.status]);
  }
  const out: StepActivity[] = [];
  for (const m of messages) {
    m.steps.forEach((s, step) => {
      out.push({
        messageId: m.id,
        step,
        channel: s.channel,
        type: s.type,
        from: s.from,
        to: s.to,
        partsCount: s.partsCount,
        cost: s.cost,
        createdAt: m.created_at,
        statuses: statuses.get(`${m.id}:${step}`) ?? [],
        botName: s.channel === 'messenger' || s.channel === 'chatapp_bot' ? botNameOf(s) : null,
      });
    });
  }
  return out;
}

/** A `bot_receivers` row. */
export interface BotReceiverRow {
  account_id: number;
  bot_name: string;
  phone_number: string;
  chat_id: string;
  updated_at: number;
}

/** A bot receiver binding from its storage row. */
export function botReceiverFromRow(row: BotReceiverRow): BotReceiver {
  return {
    accountId: row.account_id,
    botName: row.bot_name,
    phoneNumber: row.phone_number,
    chatId: row.chat_id,
    updatedAt: row.updated_at,
  };
}

/** A `phone_data` row with `data` parsed. */
export interface PhoneDataRow {
  account_id: number;
  phone_number: string;
  data: Record<string, unknown>;
  updated_at: number;
}

/** Per-phone data from its storage row. */
export function phoneDataFromRow(row: PhoneDataRow): PhoneData {
  return { accountId: row.account_id, phoneNumber: row.phone_number, data: row.data, updatedAt: row.updated_at };
}

/**
 * The merges of per-phone data entries into the numbers' current data (`ClientStorage.mergePhoneData`),
 * one storage-independent rule for both adapters: the members given replace the number's, a `null`
 * member removes it, the others stay; entries of one number apply in order. `current` answers a
 * number's stored data (null for none). Answers the data to write per number, and the indexes of
 * the entries whose number's merged JSON is longer than `maxChars` (then nothing may be written).
 */
export function mergePhoneEntries(
  entries: ReadonlyArray<{ phoneNumber: string; data: Record<string, unknown> }>,
  current: (phoneNumber: string) => Record<string, unknown> | null,
  maxChars: number,
): { merged: Map<string, Record<string, unknown>>; tooLarge: number[] } {
  const merged = new Map<string, Record<string, unknown>>();
  const last = new Map<string, number>();
  entries.forEach((e, i) => {
    // Through a Map and `fromEntries`: an assignment of a member named `__proto__` would set the prototype.
    const members = new Map(Object.entries(merged.get(e.phoneNumber) ?? current(e.phoneNumber) ?? {}));
    for (const [name, value] of Object.entries(e.data)) {
      if (value === null) members.delete(name);
      else members.set(name, value);
    }
    merged.set(e.phoneNumber, Object.fromEntries(members));
    last.set(e.phoneNumber, i);
  });
  const tooLarge = [...merged].filter(([, data]) => JSON.stringify(data).length > maxChars).map(([phone]) => last.get(phone)!);
  return { merged, tooLarge: tooLarge.sort((a, b) => a - b) };
}

/** An `emails` row with `to_addresses` parsed. */
export interface EmailRow {
  id: number;
  account_id: number;
  from_address: string;
  to_addresses: string[];
  subject: string;
  status: string;
  message_id: string | null;
  error: string | null;
  created_at: number;
  sent_at: number | null;
}

/** An e-mail record from its storage row. */
export function emailFromRow(row: EmailRow): EmailRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    from: row.from_address,
    to: row.to_addresses,
    subject: row.subject,
    status: row.status as EmailStatus,
    messageId: row.message_id,
    error: row.error,
    createdAt: row.created_at,
    sentAt: row.sent_at,
  };
}

/** A `social_connections` row. */
export interface SocialConnectionRow {
  account_id: number;
  alpha_name: string;
  external_id: string;
  token_ciphertext: string;
  expires_at: number | null;
  updated_at: number;
}

/** A social platform connection from its storage row. */
export function socialConnectionFromRow(row: SocialConnectionRow): SocialConnection {
  return {
    accountId: row.account_id,
    alphaName: row.alpha_name,
    externalId: row.external_id,
    tokenCiphertext: row.token_ciphertext,
    expiresAt: row.expires_at,
    updatedAt: row.updated_at,
  };
}

/** An `oauth_states` row. */
export interface OAuthStateRow {
  state: string;
  account_id: number;
  alpha_name: string;
  external_id: string;
  expires_at: number;
}

/** A pending OAuth state from its storage row. */
export function oauthStateFromRow(row: OAuthStateRow): OAuthState {
  return { state: row.state, accountId: row.account_id, alphaName: row.alpha_name, externalId: row.external_id, expiresAt: row.expires_at };
}

/**
 * The {@link ClientProvisionRecord} of a linked client as created (`createLinkedClient`, under
 * `c.idempotencyKey`): what both storages record with it, in its transaction.
 */
export function clientProvisionRecord(
  c: NewLinkedClient & { idempotencyKey: string },
  account: Pick<Account, 'id' | 'login' | 'name'>,
  keyId: number | null,
  at: number,
): ClientProvisionRecord {
  return {
    accountId: c.link.parentId,
    idempotencyKey: c.idempotencyKey,
    clientId: account.id,
    login: account.login,
    name: account.name,
    balance: c.opening?.credit.amount ?? 0,
    alphaNames: c.alphaNames.map((a) => ({ name: a.name, channels: [...a.channels] })),
    keyId,
    createdAt: at,
  };
}
