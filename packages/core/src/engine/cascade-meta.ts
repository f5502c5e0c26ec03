import type { Variable } from '../cascade/variables.ts';
import type { BotCredentials, CascadeEndpoint } from './cascade-types.ts';

/**
 * What a cascade message keeps in its `meta` column. The client's bot tokens are stored here in
 * clear (they are needed at every bot step, possibly after a restart): storage holding messages
 * must be protected like the tokens themselves. They are never shown in a status record.
 */
export interface CascadeMeta {
  messageType: string;
  endpoint: CascadeEndpoint;
  referralGuid: string | null;
  customerData: Record<string, unknown> | null;
  /** `wheterCheckSession`: chat-app steps need an open session. */
  checkSession: boolean;
  credentials: BotCredentials | null;
  /** Inline variables of the message (the overview shape's `variables`), before stored ones. */
  variables: Variable[];
}

/** Reads a message's meta, tolerating missing members (older rows). */
export function cascadeMetaOf(meta: Record<string, unknown> | null): CascadeMeta {
  const m = (meta ?? {}) as Partial<CascadeMeta>;
  return {
    messageType: m.messageType ?? 'transaction',
    endpoint: m.endpoint ?? 'default',
    referralGuid: m.referralGuid ?? null,
    customerData: m.customerData ?? null,
    checkSession: m.checkSession ?? false,
    credentials: m.credentials ?? null,
    variables: m.variables ?? [],
  };
}
