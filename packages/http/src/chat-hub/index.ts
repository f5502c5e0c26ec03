// The chat hub API, its tokens, and the client-management API token.
export { createTokenService, MIN_JWT_SECRET_LENGTH, TOKEN_ISSUER, TOKEN_AUDIENCE } from './token-service.ts';
export type {
  TokenService,
  TokenServiceOptions,
  TokenType,
  TokenClaims,
  TokenVerification,
  TokenFailureReason,
  SigningKeyInfo,
} from './token-service.ts';
export { createChatHubRoutes, MAX_OPERATOR_TOKEN_MS } from './chat-hub-routes.ts';
export type { ChatHubRoutesDeps, ChatHubEnv } from './chat-hub-routes.ts';
export { requireClientToken, readToken, authenticateToken } from './token-auth.ts';
export type { ClientAuthEnv } from './token-auth.ts';
