// Public API of @spillway/http.
export { createHttpApp, createFetchHandler, DEFAULT_RATE_LIMITS, DEFAULT_MAX_BODY_BYTES } from './app.ts';
export type { HttpOptions } from './app.ts';
export type { Env, HttpLogger } from './env.ts';
export { authenticate, readCredentials, BASIC_CHALLENGE } from './auth.ts';
export type { Credentials } from './auth.ts';
export { rateLimit } from './rate-limit.ts';
export { readJson, isJsonContentType } from './read-json.ts';
export { errorResponse } from './error-handler.ts';
export type { ErrorBody } from './error-handler.ts';
export { defineRoute, mountRoutes, buildOpenApiDocument, routeRecords, jsonSchemaOf } from './openapi.ts';
export type { RouteSpec, RouteAuth, RouteMethod, RouteResponse, OpenApiInfo } from './openapi.ts';
export { parseOrThrow, formatPath } from './validate.ts';
export * as schemas from './schemas.ts';
export { createNodeListener, serve } from './node.ts';
export type { ServeOptions, RunningServer } from './node.ts';
export { createNodeHasher } from './node-hasher.ts';
export type { NodeHasherOptions } from './node-hasher.ts';
export * from './chat-hub/index.ts';
