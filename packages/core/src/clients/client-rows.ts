import type { StepSpec } from '../types/message.ts';
import type { ChannelId } from '../types/channel.ts';
import type {
  ApplicationStatus,
  ClientLink,
  ClientLinkKind,
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

export function clientLinkFromRow(row: ClientLinkRow): ClientLink {
  return {
    childId: row.child_id,
    parentId: row.parent_id,
    kind: row.kind as ClientLinkKind,
    referralId: row.referral_id,
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
        partsCount: s.partsCount,
        cost: s.cost,
        createdAt: m.created_at,
        statuses: statuses.get(`${m.id}:${step}`) ?? [],
      });
    });
  }
  return out;
}
