/**
 * `@spillway/core`: what an embedder needs. {@link createEngine} and the {@link Engine} it
 * answers, the typed request bodies (`SendMessagesInput`, `CascadeSendInput`, `RouteInput`, ...)
 * and results, errors, clocks, cascade routes, and the `Storage` and `ChannelDriver` ports.
 * Adapter internals are in `@spillway/core/storage`, `@spillway/core/adapter` and
 * `@spillway/core/testing`.
 *
 * @module @spillway/core
 */
export { SpillwayError, isSpillwayError } from './errors.ts';
export type { ErrorDetail, SpillwayErrorCode } from './errors.ts';
export { systemClock, createFakeClock } from './clock.ts';
export type { Clock, FakeClock, TimerHandle } from './clock.ts';
export { settledBy, STOP_SETTLE_MS } from './settled-by.ts';
export { CHANNELS, MESSAGE_TYPES, channelOfType } from './types/channel.ts';
export type { ChannelId, MessageType, FailureClass } from './types/channel.ts';
export { DELIVERY_STATUSES, isFinalStatus } from './types/status.ts';
export type { DeliveryStatus, HistoryStatus } from './types/status.ts';
export type { Account, AlphaName, ApiKey, RateCategory, RateLimit, WalletTransaction, WalletTransactionKind } from './types/account.ts';
export { MIN_PASSWORD_LENGTH } from './types/account.ts';
export type { StepSpec, StoredMessage, MessageStatusView, HistoryEntry, PersistedMachineState, MessageKind } from './types/message.ts';
export type { SendResponse, SentMessage, MessageStatusRecord, FallbackStatus, ExtendedStatus, BalanceResponse } from './types/api.ts';
export type { MachineEvent, EngineAction, TimerName } from './machines/events.ts';
export type { Storage } from './ports/storage.ts';
export type { AccountStorage } from './ports/account-storage.ts';
export type { MessageStorage } from './ports/message-storage.ts';
export type { WorkStorage, Commit, CommitResult } from './ports/work-storage.ts';
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
  DriverHealthEvent,
} from './ports/channel.ts';
export type { PasswordHasher } from './ports/password-hasher.ts';
export type { RateCard } from './pricing/rate-card.ts';
export type {
  Engine,
  EngineOptions,
  EngineStopReport,
  AccountService,
  MessagingService,
  CreateAccountInput,
  ReceiptFrom,
} from './engine/engine-types.ts';
export type {
  SendMessagesInput,
  SendMessageItemInput,
  UpdateMessageInput,
  CascadeSendInput,
  CascadeMessageInput,
  CascadeOverviewInput,
  CascadeOverviewMessageInput,
  BroadcastInput,
  BroadcastRecipientInput,
  RouteInput,
  UploadVariablesInput,
  VariableInput,
} from './engine/inputs.ts';
export { createEngine } from './engine/create-engine.ts';
export { inboundRefusedForGood } from './inbound/inbound-refusal.ts';
export { isPhoneCountry } from './inbound/inbound-address.ts';
export type { AccountChannels } from './engine/account-channels.ts';
export { toMicros, fromMicros, MICROS } from './engine/money.ts';
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
  NamedRoute,
} from './cascade/cascade-request.ts';
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
export { MAX_FROM } from './messages/message-item.ts';
export type { SendRequest, SendRequestInput, MessageItem, FallbackItem, ValidatedMessage, AttemptDraft } from './messages/send-request.ts';
export { normalizePhoneNumber, isTestNumber, countryOfNumber } from './messages/phone-number.ts';
export { defaultRateCard, parseRateCard, rateCardSchema } from './pricing/rate-card.ts';
export { priceAttempt } from './pricing/price-attempt.ts';
export type { AttemptPrice } from './pricing/price-attempt.ts';
export type { InboundStorage } from './ports/inbound-storage.ts';
export type { InboundMessage, WebhookDelivery, WebhookDeliveryStatus } from './ports/inbound-storage.ts';
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
export type { RouteStatsStorage } from './ports/route-stats.ts';
export type { RouteStats, StepStats, EdgeStats } from './routes/route-stats.ts';

// Client-management API: sender applications, client links, organizations.
export type {
  SenderKind,
  ApplicationStatus,
  SenderApplication,
  ClientLinkKind,
  ClientLink,
  ClientProvisionRecord,
  ClientTransferDirection,
  ClientTransferRecord,
  Organization,
  StepActivity,
  BotReceiver,
  PhoneData,
  EmailStatus,
  EmailRecord,
  SocialConnection,
  OAuthState,
} from './types/client.ts';
export type { ClientStorage, AlphaNameWithdrawal } from './ports/client-storage.ts';

// The reachability memory: channels a number was recently found not to be on.
export type { UnreachableEntry, ReachabilityKey } from './types/reachability.ts';
export { DEFAULT_REACHABILITY_TTL_SECONDS } from './reachability/reachability-memory.ts';
export type { ReachabilityService } from './reachability/reachability-memory.ts';
