import type { DirectRoutes } from './direct-routes.ts';
import type { FetchHandler } from './node.ts';

/** One segment of a prefix: the characters a URL path keeps as they are (so that it matches the path asked). */
const SEGMENT = /^[A-Za-z0-9\-._~!$&'()*+,;=:@]+$/;

/**
 * A mount prefix in one form: `''` for the root, else `/a/b` (leading slash, no trailing one).
 * Anything that is not such a path (a URL, an empty, `.` or `..` segment, a query, spaces or
 * characters a URL would escape) is refused: no request would ever be routed under it.
 *
 * @example
 * normalizeBasePath('spillway/') // '/spillway'
 */
export function normalizeBasePath(basePath: string | undefined): string {
  if (basePath !== undefined && typeof basePath !== 'string') {
    throw new TypeError(`basePath must be a path such as '/spillway', got ${typeof basePath} ${String(basePath)}`);
  }
  const trimmed = (basePath ?? '').trim().replace(/\/+$/, '');
  if (!trimmed) return '';
  const path = trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
  const segments = path.slice(1).split('/');
  if (path.includes('://') || segments.some((s) => s === '.' || s === '..' || !SEGMENT.test(s))) {
    const hint = path.includes('://') ? " (the path only: the origin is the host's)" : '';
    throw new TypeError(`basePath must be a path such as '/spillway'${hint}, got ${JSON.stringify(basePath)}`);
  }
  return path;
}

/** The path below `basePath` (`/` at the prefix itself), or null when `pathname` is outside it. */
export function pathBelow(pathname: string, basePath: string): string | null {
  if (!basePath) return pathname;
  if (pathname === basePath) return '/';
  return pathname.startsWith(`${basePath}/`) ? pathname.slice(basePath.length) : null;
}

/** Requests {@link withBasePath} handed on for the prefix itself asked without its slash (`/spillway`), with that path. */
const atBareBase = new WeakMap<Request, string>();

/**
 * The path a request routed at `path` below `basePath` was asked for, prefix and all, as the 404
 * and 405 answers name it: `/spillway` for the prefix asked without its slash, which is routed at
 * `/` as `/spillway/` is.
 */
export function askedPath(req: Request, basePath: string, path: string): string {
  return atBareBase.get(req) ?? `${basePath}${path}`;
}

/**
 * Serves `handler` under `basePath`: a request to `/spillway/bat/balance` reaches it as
 * `/bat/balance`; a request outside the prefix gets the JSON 404 of every unknown route. The
 * prefix itself, with its slash or without, reaches it as `/`: `/spillway` is answered as the base
 * it names, not as a path outside it (nor redirected: the base of the API serves no page whose
 * relative links need the slash).
 */
export function withBasePath(handler: FetchHandler, basePath: string): FetchHandler {
  const base = normalizeBasePath(basePath);
  if (!base) return handler;
  return (req, env) => {
    const url = new URL(req.url);
    const below = pathBelow(url.pathname, base);
    if (below === null) {
      const body = { error: 'not_found', message: `No route for ${req.method} ${url.pathname}`, status: 404 };
      return Response.json(body, { status: 404 });
    }
    const asked = url.pathname;
    url.pathname = below;
    // The body stream is handed over unread: a large send is never buffered twice.
    const init: RequestInit & { duplex?: 'half' } = {
      method: req.method,
      headers: req.headers,
      signal: req.signal,
      ...(req.body ? { body: req.body, duplex: 'half' } : {}),
    };
    const inner = new Request(url, init);
    if (asked === base) atBareBase.set(inner, asked);
    return handler(inner, env);
  };
}

/**
 * The direct routes under `basePath`: a request target inside the prefix reaches them below it;
 * any other goes to `next` (the fetch handler, which answers it).
 */
export function directBelow(direct: DirectRoutes, basePath: string): DirectRoutes {
  const base = normalizeBasePath(basePath);
  if (!base) return direct;
  return (req, res, next, path = req.url ?? '') => {
    if (!path.startsWith(`${base}/`)) return next();
    direct(req, res, next, path.slice(base.length));
  };
}
