import type { RouteBinding, StoredRoute } from '../ports/cascade-storage.ts';
import type { ChannelId } from '../types/channel.ts';
import type { DeliveryStatus, HistoryStatus } from '../types/status.ts';
import type { BroadcastInput, CascadeSendInput, RouteInput, UploadVariablesInput } from './inputs.ts';

/** Which built-in route a send endpoint prefers. */
export type CascadeEndpoint = 'default' | 'messenger-first';

/** The client's own bot credentials, from the `X-Viber-Auth-Token` and `X-Tg-Bot-Key` headers. */
export interface BotCredentials {
  /** The chat-app bot's API key (`X-Viber-Auth-Token`): enables `chatapp_bot` steps. */
  chatappBotToken?: string | undefined;
  /** The messenger bot's API key (`X-Tg-Bot-Key`): enables `messenger` steps. */
  messengerBotToken?: string | undefined;
}

/** Options of {@link CascadeService.send}. */
export interface CascadeSendOptions {
  /** `messenger-first`: the `messenger-chatapp` endpoints. @default 'default' */
  endpoint?: CascadeEndpoint;
  credentials?: BotCredentials;
  /** The `{referralGuid}` of the referral endpoints, recorded on every message. */
  referralGuid?: string;
  /**
   * Answer only after the first step of every message was handed to its channel (or the
   * message ended, or `firstStepTimeoutMs` passed): the synchronous legacy endpoints.
   */
  waitForFirstStep?: boolean;
}

/** One item of the cascade response (interface 2.7). */
export interface CascadeAccepted {
  /** The GUID of the message. */
  messageId: string;
  /** The client's `id`, or one generated when it gave none. */
  trackinId: string;
}

/** One step of a cascade status record. */
export interface CascadeStepStatus {
  /** Index of the step in the route. */
  step: number;
  /** The route's step id (`sms`, `chatapp`, ...). */
  id: string;
  channel: ChannelId;
  /**
   * Null while the step was never reached; `skipped` when the engine did not send it; `expired`
   * when its ttl or timeout ran out without a delivery report; `superseded` when a late delivery
   * of an earlier step ended the cascade during this step.
   */
  status: DeliveryStatus | 'skipped' | 'expired' | 'superseded' | null;
  /** Time of the step's last event, ISO 8601. */
  dt: string | null;
  /** The step's last error or skip reason. */
  error: string | null;
  /** What the step was billed, currency units. */
  cost: number;
  /** The driver that carried the step's last attempt (with a failover, the provider), null if never sent. */
  driver: string | null;
}

/** One entry of a cascade's history. */
export interface CascadeHistoryEntry {
  step: number;
  channel: ChannelId;
  status: HistoryStatus;
  dt: string;
  error: string | null;
  /** The driver that carried the attempt or reported the outcome; null for the engine's own entries. */
  driver: string | null;
}

/**
 * The answer of `status_guid` and `status_id` (DESIGN.md): the overall status in the
 * `deliverystatus` vocabulary, the channel that delivered (or was tried last), every step and
 * the ordered history. Money in currency units.
 */
export interface CascadeStatusRecord {
  messageId: string;
  trackinId: string;
  status: DeliveryStatus;
  /** The channel that delivered, else the one tried last; null before any step ran. */
  channel: ChannelId | null;
  /** `id@revision` of the route the message runs on. */
  route: string | null;
  messageType: string | null;
  toPhone: string;
  fromName: string;
  createdAt: string;
  /** When the first step was (or is) due. */
  sheduledSent: string;
  /** When the cascade's ttl runs out, if it has one. */
  expiresAt: string | null;
  referralGuid: string | null;
  customerData: Record<string, unknown> | null;
  cost: number;
  currency: string;
  steps: CascadeStepStatus[];
  history: CascadeHistoryEntry[];
}

/** `POST /api/CascadeMessage/broadcast`: one cascade to many recipients. */
export interface BroadcastResult {
  /** Recipients accepted. */
  count: number;
  /** One per recipient, in request order. */
  messages: Array<CascadeAccepted & { toPhone: string }>;
}

/** A route as the API shows it: stored ones of the account and the read-only built-ins. */
export type RouteView = Omit<StoredRoute, 'accountId' | 'createdAt' | 'updatedAt'> & {
  builtin: boolean;
  createdAt: string | null;
  updatedAt: string | null;
};

/**
 * The cascade API, routes, variables and short links. The bodies are typed from the zod schemas
 * that validate them (`z.input`) and validated again at run time, like those of `MessagingService`.
 */
export interface CascadeService {
  /** Validates and accepts a whole cascade request (either shape of interface 4.2), or rejects it whole. */
  send(accountId: number, body: CascadeSendInput, options?: CascadeSendOptions): Promise<CascadeAccepted[]>;
  /** One cascade to many recipients; the body is a BroadcastCreateDTO (see `broadcastSchema`). */
  broadcast(accountId: number, body: BroadcastInput, options?: CascadeSendOptions): Promise<BroadcastResult>;
  /** The status of the cascade message `guid` (its `messageId` when accepted; either case), on this account. */
  statusByGuid(accountId: number, guid: string): Promise<CascadeStatusRecord>;
  statusByTrackinId(accountId: number, trackinId: string): Promise<CascadeStatusRecord>;

  listRoutes(accountId: number): Promise<RouteView[]>;
  getRoute(accountId: number, id: string): Promise<RouteView>;
  createRoute(accountId: number, body: RouteInput): Promise<RouteView>;
  /** Replaces a route; `body.revision` must be the latest revision (409 otherwise). */
  updateRoute(accountId: number, id: string, body: RouteInput): Promise<RouteView>;
  deleteRoute(accountId: number, id: string): Promise<void>;
  /** Binds a route to an alpha-name, or (alphaName null) makes it the account default. */
  bindRoute(accountId: number, id: string, alphaName: string | null): Promise<RouteBinding>;
  listBindings(accountId: number): Promise<RouteBinding[]>;

  /** `POST /api/items`: stores variables; answers how many. */
  uploadVariables(accountId: number, body: UploadVariablesInput): Promise<{ stored: number }>;
  /**
   * The target of a short link; 404 when unknown or not http(s). With `count` (default; GET
   * only, not HEAD) the click is counted and noted in history (at most once a minute per message).
   */
  resolveShortLink(code: string, options?: { count?: boolean }): Promise<string>;
}
