import { z } from 'zod';
import { cascadeItemMembers, MAX_CASCADE_MESSAGES } from '../cascade/cascade-request.ts';
import { inlineVariablesSchema } from '../cascade/variables.ts';
import { issuesToDetails } from '../validation/issue-details.ts';
import { addNearMisses, knownMembers } from '../validation/near-miss.ts';
import { SpillwayError } from '../errors.ts';
import type { ErrorDetail } from '../errors.ts';

const stringLike = z.union([z.string(), z.number().transform(String)], { error: 'must be a string or a number' });

/** A recipient of a broadcast: a number, or a number with its own id and variables. */
export const broadcastRecipientSchema = z.union(
  [stringLike, z.looseObject({ toPhone: stringLike, id: stringLike.optional(), variables: inlineVariablesSchema.optional() })],
  { error: 'must be a phone number, or an object with toPhone and optionally id and variables' },
);

/**
 * BroadcastCreateDTO (`POST /api/CascadeMessage/broadcast`): every member of a cascade message
 * (interface 2.6: `fromName`, `messageType`, `text`, `ttl`, `sheduledSent`, `chatappMessage`, ...)
 * once, as the template, and `recipients`, each a number or `{ toPhone, id?, variables? }` (a
 * recipient's `id` becomes its trackinId; its variables fill the template's `%name=...%`).
 */
export const broadcastSchema = z.looseObject({
  recipients: z.array(broadcastRecipientSchema).min(1).max(MAX_CASCADE_MESSAGES),
});

/** Members of a broadcast's top level: a cascade message's, as its template, and `recipients`. */
const broadcastMembers = knownMembers([...cascadeItemMembers.names, 'recipients'], cascadeItemMembers.spelledOddly);

/** What {@link expandBroadcast} answers. */
export interface ExpandedBroadcast {
  /** The array shape of a cascade request: one message per recipient. */
  items: Record<string, unknown>[];
  /** Per recipient, the members it gave itself (`toPhone`, `id`, `variables`, or a template member it overrides). */
  own: ReadonlySet<string>[];
}

/**
 * Expands a broadcast into the array shape of a cascade request. The cascade request refuses the
 * near misses of its messages' members (the template's and the recipients'); a broadcast refused
 * here is told its own (`recipient` for `recipients`) beside its other errors.
 */
export function expandBroadcast(body: unknown): ExpandedBroadcast {
  const parsed = broadcastSchema.safeParse(body);
  if (!parsed.success) {
    const details = issuesToDetails(parsed.error.issues);
    addNearMisses(body, broadcastMembers, '', details);
    const recipients = (body as { recipients?: unknown } | null)?.recipients;
    if (Array.isArray(recipients) && recipients.length <= MAX_CASCADE_MESSAGES) {
      recipients.forEach((r, i) => addNearMisses(r, cascadeItemMembers, `recipients[${i}]`, details));
    }
    throw new SpillwayError('validation_failed', 'The broadcast is invalid', firstRecipients(details));
  }
  const { recipients, ...template } = parsed.data;
  delete (template as Record<string, unknown>)['toPhone'];
  delete (template as Record<string, unknown>)['id'];
  const members = recipients.map((r) => (typeof r === 'string' ? { toPhone: r } : r));
  return {
    items: members.map((m) => ({ ...template, ...m })),
    own: members.map((m) => new Set(Object.keys(m))),
  };
}

/** Members every recipient has, given or not: their errors are always the recipient's. */
const PER_RECIPIENT = new Set(['toPhone', 'id', 'variables']);

/**
 * Addresses the errors of the expanded request in the broadcast: `[3].toPhone` becomes
 * `recipients[3].toPhone` (as does any member the recipient gave itself), and an error of a
 * template member is reported once, at its own path. The engine addresses a recipient's unknown
 * variable at its variables (`[3].variables`, so `recipients[3].variables`), not at the template
 * text that uses it.
 */
export function broadcastDetails(details: ErrorDetail[], own: readonly ReadonlySet<string>[]): ErrorDetail[] {
  const out = new Map<string, ErrorDetail>();
  for (const d of details) {
    const m = /^\[(\d+)\]\.?(.*)$/.exec(d.path);
    if (!m) {
      out.set(`${d.path}\u0000${d.message}`, d);
      continue;
    }
    const field = m[2] ?? '';
    const head = field.split(/[.[]/)[0] ?? '';
    const recipient = field === '' || PER_RECIPIENT.has(head) || own[Number(m[1])]?.has(head) === true;
    const path = recipient ? `recipients[${m[1]}]${field ? `.${field}` : ''}` : field;
    out.set(`${path}\u0000${d.message}`, { path, message: d.message });
  }
  return firstRecipients([...out.values()]);
}

/** Recipients whose errors a refused broadcast lists, at most: the rest are counted. */
const LISTED_RECIPIENTS = 100;

/**
 * The errors of the first {@link LISTED_RECIPIENTS} recipients that have any (each of them with all
 * of its errors), the errors of the template, and a last entry at `recipients` saying how many more
 * recipients had errors. A template variable no recipient gives listed an error for every recipient
 * of up to 5000, a body of hundreds of kilobytes in which the first few say it all.
 */
function firstRecipients(details: ErrorDetail[]): ErrorDetail[] {
  const listed = new Set<string>();
  const more = new Set<string>();
  const out: ErrorDetail[] = [];
  for (const d of details) {
    const recipient = /^recipients\[(\d+)\]/.exec(d.path)?.[1];
    if (recipient !== undefined && !listed.has(recipient)) {
      if (listed.size === LISTED_RECIPIENTS) {
        more.add(recipient);
        continue;
      }
      listed.add(recipient);
    }
    out.push(d);
  }
  if (more.size > 0) {
    out.push({
      path: 'recipients',
      message: `${more.size} more recipients have errors, not listed (only the first ${LISTED_RECIPIENTS} are)`,
    });
  }
  return out;
}
