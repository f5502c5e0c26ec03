import type { IncomingMessage, ServerResponse } from 'node:http';
import { pathBelow } from '../base-path.ts';
import { createNodeListener } from '../node.ts';
import { answeredBodyAlreadyRead, basePathOf } from './node-handler.ts';
import type { Mountable } from './node-handler.ts';

/** The part of a Koa context the middleware uses (typed here so that Koa stays the host's dependency). */
export interface KoaContextLike {
  req: IncomingMessage;
  res: ServerResponse;
  /** The URL as the client asked it, before any `koa-mount` or router prefix was taken off. */
  originalUrl: string;
  respond?: boolean;
}

/**
 * A Koa middleware serving the API under the handler's `basePath` and passing everything else to
 * `next`. It answers on the raw response (`ctx.respond = false`) with the body unread: put it
 * before any body parser (`@koa/bodyparser`); after one, it answers a JSON 500 saying so.
 *
 * @example
 * const spillway = createSpillway({ storage, channels, basePath: '/spillway' });
 * koa.use(toKoaMiddleware(spillway));
 */
export function toKoaMiddleware(target: Mountable): (ctx: KoaContextLike, next: () => Promise<unknown>) => Promise<void> {
  const basePath = basePathOf(target, 'toKoaMiddleware');
  const listener = createNodeListener(target.fetch);
  return async (ctx, next) => {
    if (pathBelow(ctx.originalUrl.split('?')[0] ?? '/', basePath) === null) {
      await next();
      return;
    }
    ctx.respond = false;
    // A body parser before this middleware (`@koa/bodyparser`) left the stream empty.
    if (answeredBodyAlreadyRead(ctx.req, ctx.res)) return;
    ctx.req.url = ctx.originalUrl;
    await listener(ctx.req, ctx.res);
  };
}
