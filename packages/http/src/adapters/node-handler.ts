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
 * A Node request listener (`(req, res, next?)`) over a mountable handler. It reads the path the
 * client asked for, `req.originalUrl` where express set one, so it works both as
 * `app.use(handler)` and under express's own mount path (`app.use('/spillway', handler)` with
 * `basePath: '/spillway'`). Outside `basePath` it calls `next()` when there is one, else answers
 * the JSON 404. Mount it before any body parser: it passes the request body through unread.
 *
 * @example
 * const spillway = createSpillway({ storage, channels, basePath: '/spillway' });
 * expressApp.use(toNodeHandler(spillway));
 */
export function toNodeHandler(
  target: Mountable,
): (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => Promise<void> {
  const basePath = normalizeBasePath(target.basePath);
  const listener = createNodeListener(target.fetch);
  return async (req, res, next) => {
    const asked = (req as { originalUrl?: unknown }).originalUrl;
    const url = typeof asked === 'string' ? asked : (req.url ?? '/');
    if (pathBelow(url.split('?')[0] ?? '/', basePath) === null && next) {
      next();
      return;
    }
    if (bodyAlreadyRead(req)) {
      const body = {
        error: 'internal',
        message: 'The request body was already read by a body parser mounted before Spillway: mount Spillway first',
        status: 500,
      };
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      return;
    }
    req.url = url;
    await listener(req, res);
  };
}

/**
 * Whether a middleware before us consumed the body stream without keeping its bytes
 * (`req.rawBody`, which the listener reads instead): the request would reach Spillway empty.
 */
function bodyAlreadyRead(req: IncomingMessage): boolean {
  if (req.method === 'GET' || req.method === 'HEAD' || (req as { rawBody?: unknown }).rawBody instanceof Buffer) return false;
  return req.readableEnded || (req as { _body?: unknown })._body === true;
}
