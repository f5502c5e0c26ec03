import type { IncomingMessage, ServerResponse } from 'node:http';
import { normalizeBasePath, pathBelow } from '../base-path.ts';
import { createNodeListener } from '../node.ts';
import type { FetchHandler } from '../node.ts';

/** What the adapters mount: a fetch handler serving everything under `basePath` (a {@link Spillway}). */
export interface Mountable {
  fetch: FetchHandler;
  /** @default '' */
  basePath?: string;
}

/**
 * The `basePath` of what an adapter is asked to mount, or a TypeError naming the adapter: handed
 * `undefined` (a Spillway not yet created) or a bare function it failed on the first property read.
 */
export function basePathOf(target: Mountable, adapter: string): string {
  if (typeof target !== 'object' || target === null || typeof target.fetch !== 'function') {
    const got = typeof target === 'function' ? 'a function (pass the Spillway itself, not its fetch)' : String(target);
    throw new TypeError(`${adapter}: expected a Spillway (createSpillway(...)) or { fetch, basePath }, got ${got}`);
  }
  return normalizeBasePath(target.basePath);
}

/**
 * A Node request listener (`(req, res, next?)`) over a mountable handler. It reads the path the
 * client asked for, `req.originalUrl` where express set one, so it works both as
 * `app.use(handler)` and under express's own mount path (`app.use('/spillway', handler)` with
 * `basePath: '/spillway'`; a mount path that `basePath` does not start with is answered a JSON 500
 * naming the `basePath` to give). Outside `basePath` it calls `next()` when there is one, else
 * answers the JSON 404. Mount it before any body parser: it passes the request body through unread.
 *
 * @example
 * const spillway = createSpillway({ storage, channels, basePath: '/spillway' });
 * expressApp.use(toNodeHandler(spillway));
 */
export function toNodeHandler(
  target: Mountable,
): (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => Promise<void> {
  const basePath = basePathOf(target, 'toNodeHandler');
  const listener = createNodeListener(target.fetch);
  return async (req, res, next) => {
    const asked = (req as { originalUrl?: unknown }).originalUrl;
    const url = typeof asked === 'string' ? asked : (req.url ?? '/');
    // express's mount path: `app.use('/spillway', handler)` strips it from `req.url`, while
    // Spillway routes on the path the client asked for, so its basePath must start with it.
    const mountedAt = (req as { baseUrl?: unknown }).baseUrl;
    if (typeof mountedAt === 'string' && mountedAt !== '' && pathBelow(basePath || '/', mountedAt) === null) {
      const wanted = `${mountedAt.replace(/\/+$/, '')}${basePath}`;
      const message =
        `Spillway is mounted at ${mountedAt} by the host but its basePath is ${JSON.stringify(basePath)}: ` +
        `create it with basePath: '${wanted}' (the path the client asks for, the mount path included)`;
      answerMisconfigured(res, message);
      return;
    }
    if (pathBelow(url.split('?')[0] ?? '/', basePath) === null && next) {
      next();
      return;
    }
    if (answeredBodyAlreadyRead(req, res)) return;
    req.url = url;
    await listener(req, res);
  };
}

/** The JSON 500 of a mounting mistake: the host's code must change, so it is said at the first request. */
function answerMisconfigured(res: ServerResponse, message: string): void {
  res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'internal', message, status: 500 }));
}

/**
 * Answers the JSON 500 that names the cause when a body parser mounted before Spillway consumed
 * the request body (it would reach Spillway empty, a misleading 400); true when it answered.
 */
export function answeredBodyAlreadyRead(req: IncomingMessage, res: ServerResponse): boolean {
  if (!bodyAlreadyRead(req)) return false;
  answerMisconfigured(res, 'The request body was already read by a body parser mounted before Spillway: mount Spillway first');
  return true;
}

/**
 * Whether a middleware before us consumed the body stream without keeping its bytes
 * (`req.rawBody`, which the listener reads instead): the request would reach Spillway empty.
 */
function bodyAlreadyRead(req: IncomingMessage): boolean {
  if (req.method === 'GET' || req.method === 'HEAD' || (req as { rawBody?: unknown }).rawBody instanceof Buffer) return false;
  return req.readableEnded || (req as { _body?: unknown })._body === true;
}
