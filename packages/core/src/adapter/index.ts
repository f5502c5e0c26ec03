/**
 * `@spillway/core/adapter`: the building blocks of the HTTP API (`@spillway/http`) and the
 * reference server beyond the engine itself: the client-management services and their request
 * schemas, inbound messages and their webhooks, the round loop, rate limiters, the message
 * machine and status records.
 *
 * Embedders do not need this entry; it follows `@spillway/http`, not semantic versioning of the
 * engine's API.
 *
 * @module @spillway/core/adapter
 */
export { createRateLimiter, sharedRateLimiterBuffer } from '../rate-limit/token-bucket.ts';
export type { RateLimiter, RateLimiterOptions, RateDecision } from '../rate-limit/token-bucket.ts';
export { LruMap } from '../lru-map.ts';
export { oldestFirst } from '../oldest-first.ts';
export type { KeyedCollection, OldestFirst } from '../oldest-first.ts';
export { SharedRecords } from '../shared-records.ts';
export type { SharedRecord } from '../shared-records.ts';
export type { KindHandler, SendPreparation } from '../engine/kind-handler.ts';
export { MachineAdvancer, statusOf } from '../engine/advance.ts';
export type { Step as MachineStep } from '../engine/advance.ts';
export { messageMachine, MAX_RETRIES } from '../machines/message-machine.ts';
export { HEARTBEAT_MS, STALE_WORKER_MS } from '../engine/worker-recovery.ts';
export { buildStatusRecord, attemptStatus } from '../engine/status-record.ts';
export { cascadeStepStatus } from '../engine/cascade-status.ts';
export { planCascade } from '../cascade/plan-cascade.ts';
export type { CascadePlan, CascadeStepDraft, PlanCascadeOptions } from '../cascade/plan-cascade.ts';
export { cascadeVariableRefs, checkCascadeVariables, variableValue } from '../cascade/cascade-variables.ts';
export type { CascadeVariableRef } from '../cascade/cascade-variables.ts';
export { newShortCode } from '../cascade/short-code.ts';
export { formatPath, issuesToDetails, rethrowAt } from '../validation/issue-details.ts';
export { isoTimeSchema, readIsoTime } from '../iso-time.ts';
export type { IsoTimeReading, WithoutOffset } from '../iso-time.ts';
export { holdsNul, nulError, NUL_MESSAGE, NUL_REPLACEMENT, withoutNul } from '../validation/nul.ts';
export { markWellFormed, wellFormed, wellFormedCopy, wellFormedDeep } from '../validation/well-formed.ts';
export { redirectKind, resolveLocation } from '../validation/redirects.ts';
export { distance } from '../validation/edit-distance.ts';
export { createInboundService } from '../inbound/inbound-service.ts';
export type { InboundService, InboundServiceDeps, InboundReceipt, InboundRecord } from '../inbound/inbound-service.ts';
export { inboundRequestSchema, parseInboundRequest, MAX_INBOUND_TEXT } from '../inbound/inbound-request.ts';
export type { InboundRequest } from '../inbound/inbound-request.ts';
export { inboundPayloadOf } from '../inbound/webhook-payload.ts';
export type { InboundPayload } from '../inbound/webhook-payload.ts';
export { WEBHOOK_RETRY_DELAYS_MS, MAX_WEBHOOK_ATTEMPTS, nextWebhookRetryDelay } from '../inbound/webhook-backoff.ts';
export { SESSION_WINDOW_MS } from '../engine/cascade-kind-handler.ts';
export { historyOf } from '../engine/history.ts';
export { createRoundLoop } from '../engine/round-loop.ts';
export { carriedBy } from '../engine/carried-by.ts';
export type { RoundLoop, RoundLoopOptions } from '../engine/round-loop.ts';
export * from '../clients/client-requests.ts';
export { alphaNameStatistics } from '../clients/alpha-name-statistics.ts';
export type { AlphaNameStatistics } from '../clients/alpha-name-statistics.ts';
export { createSenderService, MAX_STATISTICS_DAYS } from '../clients/sender-service.ts';
export type { AlphaNameRevocation, BotRevocation, SenderService, SenderServiceDeps, SenderState } from '../clients/sender-service.ts';
export { createClientService } from '../clients/client-service.ts';
export type { ClientService, ClientServiceDeps, ProvisionedClient, LinkedClient } from '../clients/client-service.ts';
export { CLIENT_TRANSFER_KEY_RETENTION_MS } from '../clients/client-transfer.ts';
export type { ClientTransfer, ClientTransferOptions } from '../clients/client-transfer.ts';
export { CLIENT_PROVISION_KEY_RETENTION_MS } from '../clients/client-provision.ts';
export type { ClientProvisionOptions } from '../clients/client-provision.ts';
export type { IssuedClientKey } from '../clients/client-keys.ts';
export { botCosts } from '../clients/bot-costs.ts';
export type { BotCostRow } from '../clients/bot-costs.ts';
export { PHONE_VARIABLE, applyPhoneVariables } from '../clients/phone-variables.ts';
export type { EmailTransport, OutgoingEmail } from '../ports/email-transport.ts';
export { createClientDataService } from '../clients/client-data-service.ts';
export type { ClientDataService, ClientDataServiceDeps } from '../clients/client-data-service.ts';
export { sendBotChatMessage } from '../clients/bot-chat.ts';
export { sendSingleMessage, sendIp2sms, parseIp2smsParams, ip2smsParamsSchema } from '../clients/classic-send.ts';
export { createInboundRouter } from '../inbound/inbound-router.ts';
