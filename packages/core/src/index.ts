// Public API of @spillway/core. Each area appends its exports here.
export { SpillwayError, isSpillwayError } from './errors.ts';
export type { ErrorDetail, SpillwayErrorCode } from './errors.ts';
export { systemClock, createFakeClock } from './clock.ts';
export type { Clock, FakeClock, TimerHandle } from './clock.ts';
export { CHANNELS, MESSAGE_TYPES, channelOfType } from './types/channel.ts';
export type { ChannelId, MessageType, FailureClass } from './types/channel.ts';
export { DELIVERY_STATUSES, isFinalStatus } from './types/status.ts';
export type { DeliveryStatus, HistoryStatus } from './types/status.ts';
export type { Account, AlphaName, ApiKey, RateCategory, RateLimit, WalletTransaction, WalletTransactionKind } from './types/account.ts';
export type { StepSpec, StoredMessage, HistoryEntry, PersistedMachineState, MessageKind } from './types/message.ts';
export type { WorkItem } from './types/work.ts';
export { wakeAtOf } from './types/work.ts';
export type { SendResponse, SentMessage, MessageStatusRecord, FallbackStatus, ExtendedStatus, BalanceResponse } from './types/api.ts';
export type { MachineEvent, EngineAction, TimerName } from './machines/events.ts';
export type { Storage } from './ports/storage.ts';
export type { AccountStorage, NewAccount, NewWalletTransaction, WalletQuery } from './ports/account-storage.ts';
export type {
  MessageStorage,
  NewMessage,
  IngestBatch,
  IngestResult,
  ScheduledChange,
  ScheduledChangeResult,
  MessageQuery,
} from './ports/message-storage.ts';
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
} from './ports/work-storage.ts';
export type { ChatHubStorage, ChatHubOperator, SigningKey, RevokedToken } from './ports/chat-hub-storage.ts';
export type { CascadeStorage } from './ports/cascade-storage.ts';
export type {
  ChannelDriver,
  ChannelContext,
  OutboundAttempt,
  SendResult,
  Receipt,
  AttemptRef,
  InboundReport,
  PendingAttempt,
  DriverRoute,
} from './ports/channel.ts';
export type { PasswordHasher } from './ports/password-hasher.ts';
export type { RateCard } from './pricing/rate-card.ts';
export type { Engine, EngineOptions, AccountService, MessagingService, CreateAccountInput } from './engine/engine-types.ts';
export { createRateLimiter } from './rate-limit/token-bucket.ts';
export type { RateLimiter, RateLimiterOptions, RateDecision } from './rate-limit/token-bucket.ts';
export { createEngine } from './engine/create-engine.ts';
export type { KindHandler, SendPreparation } from './engine/kind-handler.ts';
export { MachineAdvancer, statusOf } from './engine/advance.ts';
export type { Step as MachineStep } from './engine/advance.ts';
export { messageMachine, MAX_RETRIES } from './machines/message-machine.ts';
export { toMicros, fromMicros, MICROS } from './engine/money.ts';
export { buildStatusRecord, attemptStatus } from './engine/status-record.ts';
export { messagePatchSchema } from './engine/message-patch.ts';
export { routeSchema, routeStepSchema, routeEdgeSchema, ROUTE_OUTCOMES, MAX_ROUTE_STEPS } from './types/route.ts';
export type { Route, RouteStep, RouteEdge, RouteOutcome } from './types/route.ts';
export { validateRoute, assertValidRoute } from './routes/validate-route.ts';
export { defaultRoute, messengerFirstRoute, flashcallRoute, BUILTIN_ROUTES, routeRef, parseRouteRef } from './routes/builtin-routes.ts';
export { compileRoute } from './machines/cascade-machine.ts';
export type { CascadeMachineContext, CompileRouteOptions } from './machines/cascade-machine.ts';
export {
  parseCascadeRequest,
  cascadeItemSchema,
  chatappMessageSchema,
  messengerMessageSchema,
  CASCADE_MESSAGE_TYPES,
  MAX_CASCADE_MESSAGES,
  MAX_CASCADE_TTL,
} from './cascade/cascade-request.ts';
export type {
  ValidatedCascade,
  ParseCascadeOptions,
  CascadeMessageType,
  CascadeItem,
  ChatappMessage,
  MessengerMessage,
} from './cascade/cascade-request.ts';
export { planCascade } from './cascade/plan-cascade.ts';
export type { CascadePlan, CascadeStepDraft, PlanCascadeOptions } from './cascade/plan-cascade.ts';
export {
  findVariables,
  resolveVariables,
  isLinkValue,
  parseVariableUpload,
  variableUploadSchema,
  variableItemSchema,
  MAX_VARIABLE_ITEMS,
} from './cascade/variables.ts';
export type { Variable, VariableKind, VariableRef } from './cascade/variables.ts';
export { cascadeVariableRefs, checkCascadeVariables, variableValue } from './cascade/cascade-variables.ts';
export type { CascadeVariableRef } from './cascade/cascade-variables.ts';
export { newShortCode } from './cascade/short-code.ts';
export { formatPath, issuesToDetails } from './validation/issue-details.ts';
export type { RouteDefinition, StoredRoute, RouteBinding, ShortLink, NewShortLink } from './ports/cascade-storage.ts';
export { countSegments } from './sms/segments.ts';
export type { SegmentCount } from './sms/segments.ts';
export {
  OTP_TEMPLATES,
  OTP_TEMPLATE_IDS,
  OTP_LANGUAGES,
  getOtpTemplate,
  normalizeOtpLanguage,
  checkOtpParams,
  renderOtpTemplate,
} from './messages/otp-templates.ts';
export type { OtpTemplate, OtpParam, OtpParamType, OtpLanguage, OtpParams, OtpParamIssue } from './messages/otp-templates.ts';
export {
  parseSendRequest,
  sendRequestSchema,
  messageItemSchema,
  fallbackSchema,
  MAX_MESSAGES,
  MAX_FALLBACKS,
  MAX_TTL_SECONDS,
  MAX_SCHEDULE_AHEAD_MS,
} from './messages/send-request.ts';
export type { SendRequest, SendRequestInput, MessageItem, FallbackItem, ValidatedMessage, AttemptDraft } from './messages/send-request.ts';
export { normalizePhoneNumber, isTestNumber, countryOfNumber } from './messages/phone-number.ts';
export { defaultRateCard, parseRateCard, rateCardSchema } from './pricing/rate-card.ts';
export { priceAttempt } from './pricing/price-attempt.ts';
export type { AttemptPrice } from './pricing/price-attempt.ts';
export type { InboundStorage } from './ports/inbound-storage.ts';
export type {
  InboundMessage,
  WebhookDelivery,
  WebhookDeliveryStatus,
  NewWebhookDelivery,
  ClaimedDelivery,
  DeliveryOutcome,
} from './ports/inbound-storage.ts';
export { createInboundService } from './inbound/inbound-service.ts';
export type { InboundService, InboundServiceDeps, InboundReceipt, InboundRecord } from './inbound/inbound-service.ts';
export { inboundRequestSchema, parseInboundRequest, MAX_INBOUND_TEXT } from './inbound/inbound-request.ts';
export type { InboundRequest } from './inbound/inbound-request.ts';
export { inboundPayloadOf } from './inbound/webhook-payload.ts';
export type { InboundPayload } from './inbound/webhook-payload.ts';
export { WEBHOOK_RETRY_DELAYS_MS, MAX_WEBHOOK_ATTEMPTS, nextWebhookRetryDelay } from './inbound/webhook-backoff.ts';
export type {
  CascadeService,
  CascadeSendOptions,
  CascadeEndpoint,
  BotCredentials,
  CascadeAccepted,
  CascadeStatusRecord,
  CascadeStepStatus,
  CascadeHistoryEntry,
  BroadcastResult,
  RouteView,
} from './engine/cascade-types.ts';
export { broadcastSchema, broadcastRecipientSchema } from './engine/cascade-broadcast.ts';
export { SESSION_WINDOW_MS } from './engine/cascade-kind-handler.ts';
export { historyOf } from './engine/history.ts';
export { createRoundLoop } from './engine/round-loop.ts';
export type { RoundLoop, RoundLoopOptions } from './engine/round-loop.ts';
export { planIngest, customerMessageIdsOf } from './storage/plan-ingest.ts';
export type { IngestPlan, IngestInsertPlan, KnownCustomerMessage, PlannedMessage } from './storage/plan-ingest.ts';
export {
  ingestRows,
  historyRowValues,
  pushHistoryRow,
  MESSAGE_ROW_COLUMNS,
  WALLET_ROW_COLUMNS,
  HISTORY_ROW_COLUMNS,
} from './storage/ingest-rows.ts';
export type { IngestRows } from './storage/ingest-rows.ts';
export { storedMessageFromRow, historyEntryFromRow } from './storage/message-rows.ts';
export type { MessageRow, HistoryRow } from './storage/message-rows.ts';
export { queuedReceiptFromRow, receiptOfOrphan } from './storage/receipt-rows.ts';
export type { ReceiptRow } from './storage/receipt-rows.ts';
export { accountFromRow, apiKeyFromRow, alphaNameFromRow, walletTransactionFromRow } from './storage/account-rows.ts';
export type { AccountRow, ApiKeyRow, AlphaNameRow, WalletTransactionRow } from './storage/account-rows.ts';
export { inboundMessageFromRow, webhookDeliveryFromRow, claimedDeliveryFromRow, WEBHOOK_DELIVERY_COLUMNS } from './storage/inbound-rows.ts';
export type { InboundMessageRow, WebhookDeliveryRow, ClaimedDeliveryRow } from './storage/inbound-rows.ts';
export { chatHubOperatorFromRow, revokedTokenFromRow, signingKeyFromRow } from './storage/chat-hub-rows.ts';
export type { ChatHubOperatorRow, RevokedTokenRow, SigningKeyRow } from './storage/chat-hub-rows.ts';
export { storedRouteFromRow, shortLinkFromRow, routeDefinitionJson, routeBindingKey, routeBindingFromRow } from './storage/cascade-rows.ts';
export type { RouteRow, ShortLinkRow, RouteBindingRow } from './storage/cascade-rows.ts';
export type { RouteStatsStorage, RouteTraffic, RouteTrafficQuery } from './ports/route-stats.ts';
export { aggregateRouteStats } from './routes/route-stats.ts';
export type { RouteStats, StepStats, EdgeStats } from './routes/route-stats.ts';

// Client-management API: sender applications, client links, organizations.
export type {
  SenderKind,
  ApplicationStatus,
  SenderApplication,
  ClientLinkKind,
  ClientLink,
  Organization,
  StepActivity,
  BotReceiver,
  PhoneData,
  EmailStatus,
  EmailRecord,
  SocialConnection,
  OAuthState,
} from './types/client.ts';
export type { ClientStorage, NewSenderApplication, NewOrganization, NewEmail, PageQuery } from './ports/client-storage.ts';
export { hasClientStorage } from './ports/client-storage.ts';
export {
  senderApplicationFromRow,
  clientLinkFromRow,
  organizationFromRow,
  stepActivitiesOf,
  botReceiverFromRow,
  phoneDataFromRow,
  emailFromRow,
  socialConnectionFromRow,
  oauthStateFromRow,
} from './clients/client-rows.ts';
export type {
  SenderApplicationRow,
  ClientLinkRow,
  OrganizationRow,
  BotReceiverRow,
  PhoneDataRow,
  EmailRow,
  SocialConnectionRow,
  OAuthStateRow,
} from './clients/client-rows.ts';
export * from './clients/client-requests.ts';
export { alphaNameStatistics } from './clients/alpha-name-statistics.ts';
export type { AlphaNameStatistics } from './clients/alpha-name-statistics.ts';
export { createSenderService, MAX_STATISTICS_DAYS } from './clients/sender-service.ts';
export type { SenderService, SenderServiceDeps, SenderState } from './clients/sender-service.ts';
export { createClientService } from './clients/client-service.ts';
export type { ClientService, ClientServiceDeps, ProvisionedClient, LinkedClient } from './clients/client-service.ts';
export { botCosts } from './clients/bot-costs.ts';
export type { BotCostRow } from './clients/bot-costs.ts';
export { applyPhoneVariables } from './clients/phone-variables.ts';
export type { EmailTransport, OutgoingEmail } from './ports/email-transport.ts';
export { createClientDataService } from './clients/client-data-service.ts';
export type { ClientDataService, ClientDataServiceDeps } from './clients/client-data-service.ts';
export { sendBotChatMessage } from './clients/bot-chat.ts';
export { sendSingleMessage, sendIp2sms, parseIp2smsParams, ip2smsParamsSchema } from './clients/classic-send.ts';
