export { createSpillwayClient, SpillwayApiError } from './client.ts';
export type { ErrorBody, Schemas, SendOptions, SpillwayClient, SpillwayClientOptions } from './client.ts';
export { SpillwayNetworkError } from './network-error.ts';
export { authHeaders } from './auth.ts';
export type { SpillwayAuth } from './auth.ts';
export { retryAfterMs, retryingFetch } from './retry.ts';
export type { RetryOptions, Sleep } from './retry.ts';
export type { components, operations, paths } from './openapi.ts';
