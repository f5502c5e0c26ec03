/**
 * `@spillway/http`: the HTTP API of the engine as a Hono app ({@link createHttpApp}) and a
 * web-standard fetch handler, a Node server ({@link serve}) and request listener, and the
 * webhook delivery worker.
 *
 * @module @spillway/http
 */
export { createHttpApp, createFetchHandler, directRoutesOf, DEFAULT_RATE_LIMITS, DEFAULT_MAX_BODY_BYTES } from './app.ts';
export { answerSend } from './direct-routes.ts';
export type { DirectRoutes, SendAnswer, SendsElsewhere } from './direct-routes.ts';
export type { HttpOptions } from './app.ts';
export type { Env, HttpLogger } from './env.ts';
export { authenticate, readCredentials, BASIC_CHALLENGE } from './auth.ts';
export type { Credentials } from './auth.ts';
export { rateLimit } from './rate-limit.ts';
export { readJson, isJsonContentType } from './read-json.ts';
export { errorResponse, INTERNAL_ERROR_BODY } from './error-handler.ts';
export type { ErrorBody } from './error-handler.ts';
export { defineRoute, mountRoutes, buildOpenApiDocument, routeRecords, jsonSchemaOf } from './openapi.ts';
export type { RouteSpec, RouteAuth, RouteMethod, RouteResponse, OpenApiInfo } from './openapi.ts';
export type { OpenApiBuildOptions, RouteRecord } from './openapi.ts';
export { component, openApiComponents } from './openapi-components.ts';
export { parseOrThrow } from './validate.ts';
/** Zod schemas of the messaging API's responses (the OpenAPI document's). */
export * as schemas from './schemas.ts';
export { answerClientErrors, createNodeListener, DEFAULT_MAX_HEADER_BYTES, serve } from './node.ts';
export type { FetchHandler, ServeOptions, RunningServer } from './node.ts';
export { createNodeHasher } from './node-hasher.ts';
export type { HashQueueStats, NodeHasher, NodeHasherOptions } from './node-hasher.ts';
export { createLoginGuard, sharedLoginGuardBuffer } from './login-guard.ts';
export { createHttpSharedState } from './shared-state.ts';
export type { HttpSharedState } from './shared-state.ts';
export type { LoginAdmission, LoginAttempt, LoginGuard, LoginLimits } from './login-guard.ts';
export * from './chat-hub/index.ts';
export { registerInboundRoutes } from './routes/inbound.ts';
export { healthBody } from './routes/system.ts';
export { isWildcardHost, listenOrigin } from './public-url.ts';
export type { InboundRouteDeps } from './routes/inbound.ts';
export { createWebhookDeliveryWorker } from './webhooks/delivery-worker.ts';
export type {
  WebhookAttempt,
  WebhookAttemptOutcome,
  WebhookDeliveryWorker,
  WebhookDeliveryWorkerOptions,
} from './webhooks/delivery-worker.ts';
export { createWebhookMetrics } from './webhooks/webhook-metrics.ts';
export type { WebhookMetrics } from './webhooks/webhook-metrics.ts';
export { checkCallbackUrl, guardedPost, UrlRefusedError } from './webhooks/guarded-post.ts';
export type { CallbackUrlPolicy, GuardedPostOptions, GuardedPostResult } from './webhooks/guarded-post.ts';
export { classifyAddress, isPublicAddress } from './webhooks/address-class.ts';
export type { AddressClass } from './webhooks/address-class.ts';
export { signWebhook } from './webhooks/sign-webhook.ts';
export type { WebhookHeaders } from './webhooks/sign-webhook.ts';
export { getWebhookSecret, newWebhookSecret, webhookSecretKey } from './webhooks/webhook-secret.ts';
export { addRequestCounts, countCommit, createEngineMetrics, createWorkerMetrics, takeRequestCounts } from './metrics.ts';
export type { EngineCounts, RequestCounts, WorkerCounts } from './metrics.ts';
export { registerRouteStatsApi, MAX_STATS_CASCADES } from './routes/route-stats-api.ts';
export { createSmtpTransport } from './email/smtp-transport.ts';
export type { SmtpTransportOptions } from './email/smtp-transport.ts';
export { registerSocialRoutes } from './social/social-routes.ts';
export type { SocialOptions } from './social/social-options.ts';
export { createTokenCipher } from './social/token-cipher.ts';
export type { TokenCipher } from './social/token-cipher.ts';
export { createSpillway } from './spillway.ts';
export type { Spillway, SpillwayOptions } from './spillway.ts';
export { normalizeBasePath, withBasePath } from './base-path.ts';
export { toNodeHandler } from './adapters/node-handler.ts';
export type { Mountable } from './adapters/node-handler.ts';
export { toFastifyPlugin } from './adapters/fastify.ts';
export type { FastifyInstanceLike } from './adapters/fastify.ts';
export { toKoaMiddleware } from './adapters/koa.ts';
export type { KoaContextLike } from './adapters/koa.ts';
export { registerDriverRoutes } from './driver-routes.ts';
export { inboundRefusal, watchDrivers } from './drivers/driver-events.ts';
export type { DriverEvent, InboundRefusal, InboundRefusalReason } from './drivers/driver-events.ts';
export { createDriverLog, REFUSAL_LOG_WINDOW_MS } from './drivers/driver-log.ts';
export { createDriverMetrics } from './drivers/driver-metrics.ts';
export type { DriverMetrics } from './drivers/driver-metrics.ts';
