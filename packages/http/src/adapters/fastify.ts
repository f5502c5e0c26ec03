import type { IncomingMessage, ServerResponse } from 'node:http';
import { normalizeBasePath, pathBelow } from '../base-path.ts';
import { createNodeListener } from '../node.ts';
import { basePathOf } from './node-handler.ts';
import type { Mountable } from './node-handler.ts';

/** The part of a Fastify instance the plugin uses (typed here so that Fastify stays the host's dependency). */
export interface FastifyInstanceLike {
  /** The prefix the plugin was registered with (`fastify.register(plugin, { prefix })`), nested ones included. */
  readonly prefix?: string;
  removeAllContentTypeParsers(): unknown;
  addContentTypeParser(
    contentType: string,
    parser: (request: unknown, payload: unknown, done: (error: Error | null) => void) => void,
  ): unknown;
  all(path: string, handler: (request: { raw: IncomingMessage }, reply: { raw: ServerResponse; hijack(): unknown }) => unknown): unknown;
}

/**
 * A Fastify plugin serving the API under the handler's `basePath`. In its own encapsulated
 * context it replaces Fastify's body parsers with one that leaves the body unread, so that
 * Spillway reads the request stream itself (its own size limit and JSON errors); then it hands
 * the raw request and response over (`reply.hijack()`). The host's other routes keep their parsers.
 * Registered with a `prefix`, the plugin serves the handler's `basePath` below it: `basePath` is
 * the whole path the client asks for, so it must start with the prefix (else the registration fails
 * naming the `basePath` to give).
 *
 * @example
 * const spillway = createSpillway({ storage, channels, basePath: '/spillway' });
 * await fastify.register(toFastifyPlugin(spillway));
 * // or, the same: await fastify.register(toFastifyPlugin(spillway), { prefix: '/spillway' });
 */
export function toFastifyPlugin(target: Mountable): (instance: FastifyInstanceLike) => Promise<void> {
  const basePath = basePathOf(target, 'toFastifyPlugin');
  const listener = createNodeListener(target.fetch);
  return async (instance) => {
    instance.removeAllContentTypeParsers();
    instance.addContentTypeParser('*', (_request, _payload, done) => done(null));
    // Fastify puts the prefix before every route of the plugin; Spillway routes on the whole path.
    const prefix = normalizeBasePath(instance.prefix);
    const below = prefix ? pathBelow(basePath, prefix) : basePath || '/';
    if (below === null || (prefix && !basePath)) {
      throw new Error(
        `toFastifyPlugin: registered with prefix '${prefix}' but Spillway's basePath is ${JSON.stringify(basePath)}: ` +
          `create it with basePath: '${prefix}${basePath}' (the path the client asks for, the prefix included)`,
      );
    }
    const handler = async (request: { raw: IncomingMessage }, reply: { raw: ServerResponse; hijack(): unknown }) => {
      reply.hijack();
      await listener(request.raw, reply.raw);
    };
    instance.all(below, handler);
    instance.all(`${below === '/' ? '' : below}/*`, handler);
  };
}
