/**
 * `@spillway/channels`: channel drivers implementing core's `ChannelDriver` port: the simulator,
 * Kannel, SMPP, a signed webhook, Telegram and Viber bots, and failover between providers.
 *
 * @module @spillway/channels
 */
export { createSimulator, simulatedOutcome } from './simulator/simulator.ts';
export type { SimulatorOptions, SimulatedOutcome } from './simulator/simulator.ts';
export { createKannelDriver, kannelMoUrl } from './kannel/kannel.ts';
export type { KannelMoUrlOptions, KannelOptions } from './kannel/kannel.ts';
export { dlrOutcome, sendsmsOutcome, DEFAULT_DLR_MASK } from './kannel/kannel-status.ts';
export { SMPP_ERRORS, smppFailure, receiptState, parseReceiptText } from './smpp/smpp-status.ts';
export { createSmppDriver } from './smpp/smpp.ts';
export type { SmppOptions } from './smpp/smpp.ts';
export { splitSms } from './smpp/smpp-encoding.ts';
export { createWebhookDriver } from './webhook/webhook.ts';
export type { WebhookDriverOptions } from './webhook/webhook.ts';
export { webhookSendOutcome, parseWebhookReceipt } from './webhook/webhook-status.ts';
export { createFailoverDriver } from './failover/failover.ts';
export type { FailoverOptions, ProviderState } from './failover/failover.ts';
export { createTelegramDriver } from './telegram/telegram.ts';
export type { TelegramOptions } from './telegram/telegram.ts';
export { botApiOutcome } from './telegram/telegram-status.ts';
export { createViberDriver, viberSignature } from './viber/viber.ts';
export type { ViberOptions } from './viber/viber.ts';
export { viberSendOutcome, viberReceipt, VIBER_STATUSES } from './viber/viber-status.ts';
