import type { Account, Engine } from '@spillway/core';
import type { RateLimiter } from '@spillway/core/adapter';
import type { AuthCache } from './auth-cache.ts';
import type { SendsElsewhere } from './direct-routes.ts';
import type { LoginGuard } from './login-guard.ts';
import type { CallbackUrlPolicy } from './webhooks/guarded-post.ts';
import type { TokenService } from './chat-hub/token-service.ts';

/** Where the HTTP adapter writes what it has to say. `console` fits. */
export interface HttpLogger {
  info(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
  error(message: string, meta?: Record<string, unknown>): void;
}

/**
 * The Hono environment of every Spillway route. The app sets `engine`, `rateLimiter`,
 * `authCache` and `logger` on each request, so route modules mounted through `extraRoutes`
 * need no closure over the options; `account` is set by the `authenticate` middleware.
 * On hot paths read them with `c.get('name')`: Hono's `c.var` copies every variable into a new
 * object on each access.
 */
export interface Env {
  Variables: {
    account: Account;
    engine: Engine;
    rateLimiter: RateLimiter;
    authCache: AuthCache;
    /** Failed-password limits; absent where a route module is mounted outside `createHttpApp`. */
    loginGuard: LoginGuard | undefined;
    /** The caller's address as the app's `clientAddress` option tells it (socket peer by default). */
    clientAddress: string | undefined;
    /** Which callback URLs `PUT /api/AlphaName/callback` accepts. */
    callbackUrlPolicy: CallbackUrlPolicy | undefined;
    logger: HttpLogger;
    /** Verifies client tokens (`POST /api/auth`) where the app was given a token service. */
    tokens: TokenService | undefined;
    /** Where sends are answered instead of with `engine` (`HttpOptions.sendsElsewhere`). */
    sendsElsewhere: SendsElsewhere | undefined;
    /** `METHOD /path/:pattern` of the matched route, set by `defineRoute` (metrics label). */
    routeId: string;
  };
}
