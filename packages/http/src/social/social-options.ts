/** Configuration of the social platform endpoints (`/social...`, `/api/marketplace/callback`). */
export interface SocialOptions {
  /** `hub.verify_token` of the webhook handshake (`GET /social`). */
  verifyToken?: string | undefined;
  /** App secret: signs webhooks (`X-Hub-Signature-256`) and authenticates the code exchange. */
  appSecret?: string | undefined;
  /** OAuth client id of the app. */
  clientId?: string | undefined;
  /** Where users authorize the app; `GET /social/authorize` builds the link. */
  authorizeUrl?: string | undefined;
  /** Token endpoint of the code exchange. */
  tokenUrl?: string | undefined;
  /** The redirect URI registered with the platform (`.../social/add-token`). */
  redirectUri?: string | undefined;
  /** Upstream of `/social-graph/{apiVersion}/{path}`. */
  graphUrl?: string | undefined;
  /** 32-byte key (hex or base64) encrypting the stored tokens. */
  tokenKey?: string | undefined;
  /** Let the token exchange and the proxy reach loopback and private addresses. @default false */
  allowPrivateUrls?: boolean | undefined;
  /** Time limit of each upstream call, ms. @default 10000 */
  timeoutMs?: number | undefined;
  /** Largest upstream answer relayed, bytes. @default 1 MiB */
  maxResponseBytes?: number | undefined;
  /** Called when an incoming message's webhook was queued (wakes the webhook delivery worker). */
  onQueued?: (() => void) | undefined;
}
