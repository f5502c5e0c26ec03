/**
 * `@spillway/core/storage`: what a storage adapter needs beyond the port interfaces of the main
 * entry: the row shapes shared by the SQLite and PostgreSQL adapters, their mappers to domain
 * records, ingest planning, and the argument types of the storage ports' methods.
 *
 * Embedders do not need this entry; it follows the adapters, not semantic versioning of the
 * engine's API.
 *
 * @module @spillway/core/storage
 */
export type { Storage } from '../ports/storage.ts';
export type { AccountStorage, NewAccount, NewWalletTransaction, WalletQuery } from '../ports/account-storage.ts';
export type {
  MessageStorage,
  NewMessage,
  IngestBatch,
  IngestResult,
  ScheduledChange,
  ScheduledChangeResult,
  MessageQuery,
} from '../ports/message-storage.ts';
export type {
  WorkStorage,
  Commit,
  CommitResult,
  MessageUpdate,
  AttemptHolder,
  ProviderIdRecord,
  StepCharge,
  StepChargeResult,
  QueuedReceipt,
  OrphanReceipt,
} from '../ports/work-storage.ts';
export type { ChatHubStorage, ChatHubOperator, SigningKey, RevokedToken } from '../ports/chat-hub-storage.ts';
export type { CascadeStorage, RouteDefinition, StoredRoute, RouteBinding, ShortLink, NewShortLink } from '../ports/cascade-storage.ts';
export type {
  InboundStorage,
  InboundMessage,
  WebhookDelivery,
  WebhookDeliveryStatus,
  NewWebhookDelivery,
  ClaimedDelivery,
  DeliveryOutcome,
} from '../ports/inbound-storage.ts';
export type { RouteStatsStorage, RouteTraffic, RouteTrafficQuery } from '../ports/route-stats.ts';
export type {
  ClientStorage,
  NewSenderApplication,
  NewOrganization,
  NewEmail,
  NewClientTransfer,
  NewLinkedClient,
  LinkedClientRecord,
  PageQuery,
} from '../ports/client-storage.ts';
export { hasClientStorage } from '../ports/client-storage.ts';
export { loginClashWarning, loginKey, loginKeysOf } from './login-key.ts';
export type { WorkItem } from '../types/work.ts';
export { wakeAtOf } from '../types/work.ts';
export type { StepSpec, StoredMessage, HistoryEntry, PersistedMachineState, MessageKind } from '../types/message.ts';
export { aggregateRouteStats } from '../routes/route-stats.ts';
export { planIngest, customerMessageIdsOf } from './plan-ingest.ts';
export type { IngestPlan, IngestInsertPlan, KnownCustomerMessage, PlannedMessage } from './plan-ingest.ts';
export {
  ingestRows,
  draftIngestRows,
  historyRowValues,
  pushHistoryRow,
  MESSAGE_ROW_COLUMNS,
  isHandedOver,
  handedOverIds,
  handedOverMessages,
  WALLET_ROW_COLUMNS,
  HISTORY_ROW_COLUMNS,
} from './ingest-rows.ts';
export type { IngestRows } from './ingest-rows.ts';
export {
  storedMessageFromRow,
  statusViewFromRow,
  STATUS_VIEW_COLUMNS,
  historyEntryFromRow,
  historyFromTuples,
  HISTORY_TUPLE_SQL,
  scheduledChangeValues,
  snapshotText,
  workText,
} from './message-rows.ts';
export type { MessageRow, StatusViewRow, HistoryRow, HistoryTuple, ScheduledChangeValues } from './message-rows.ts';
export { queuedReceiptFromRow, receiptOfOrphan } from './receipt-rows.ts';
export type { ReceiptRow } from './receipt-rows.ts';
export { accountFromRow, apiKeyFromRow, alphaNameFromRow, walletTransactionFromRow } from './account-rows.ts';
export type { AccountRow, ApiKeyRow, AlphaNameRow, WalletTransactionRow } from './account-rows.ts';
export { withdrawChannels } from './alpha-name-withdrawal.ts';
export { inboundMessageFromRow, webhookDeliveryFromRow, claimedDeliveryFromRow, WEBHOOK_DELIVERY_COLUMNS } from './inbound-rows.ts';
export type { InboundMessageRow, WebhookDeliveryRow, ClaimedDeliveryRow } from './inbound-rows.ts';
export { chatHubOperatorFromRow, revokedTokenFromRow, signingKeyFromRow } from './chat-hub-rows.ts';
export type { ChatHubOperatorRow, RevokedTokenRow, SigningKeyRow } from './chat-hub-rows.ts';
export { storedRouteFromRow, shortLinkFromRow, routeDefinitionJson, routeBindingKey, routeBindingFromRow } from './cascade-rows.ts';
export type { RouteRow, ShortLinkRow, RouteBindingRow } from './cascade-rows.ts';
export {
  senderApplicationFromRow,
  clientLinkFromRow,
  clientProvisionFromRow,
  clientProvisionRecord,
  clientTransferFromRow,
  organizationFromRow,
  stepActivitiesOf,
  botReceiverFromRow,
  phoneDataFromRow,
  mergePhoneEntries,
  emailFromRow,
  socialConnectionFromRow,
  oauthStateFromRow,
} from '../clients/client-rows.ts';
export type {
  SenderApplicationRow,
  ClientLinkRow,
  ClientProvisionRow,
  ClientTransferRow,
  OrganizationRow,
  BotReceiverRow,
  PhoneDataRow,
  EmailRow,
  SocialConnectionRow,
  OAuthStateRow,
} from '../clients/client-rows.ts';

// The reachability memory's port and rows, and the alpha-name directory incoming messages use.
export type { ReachabilityStorage } from '../ports/reachability-storage.ts';
export { hasReachabilityStorage } from '../ports/reachability-storage.ts';
export { unreachableFromRow, latestPerKey } from '../reachability/reachability-rows.ts';
export type { UnreachableRow } from '../reachability/reachability-rows.ts';
export type { AlphaNameDirectory } from '../ports/alpha-name-directory.ts';
export { hasAlphaNameDirectory } from '../ports/alpha-name-directory.ts';
export { afterTurn, perTurn } from './per-turn.ts';
export type { PerTurnMemo } from './per-turn.ts';
