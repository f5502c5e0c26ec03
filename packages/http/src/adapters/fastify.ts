import type { IncomingMessage, ServerResponse } from 'node:http';
import { normalizeBasePath } from '../base-path.ts';
import { createNodeListener } from '../node.ts';
import type { Mountable } from './node-handler.ts';

/** The part of a Fastify instance the plugin uses (typed here so that Fastify stays the host's dependency). */
export interface FastifyInstanceLike {
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
 *
 * @example
 * const spillway = createSpillway({ storage, channels, basePath: '/spillway' });
 * await fastify.register(toFastifyPlugin(spillway));
 */
export function toFastifyPlugin(target: Mountable): (instance: FastifyInstanceLike) => Promise<void> {
  const basePath = normalizeBasePath(target.basePath);
  const listener = createNodeListener(target.fetch);
  return async (instance) => {
    instance.removeAllContentTypeParsers();
    instance.addContentTypeParser('*', (_request, _payload, done) => done(null));
    const handler = async (request: { raw: IncomingMessage }, reply: { raw: ServerResponse; hijack(): unknown }) => {
      reply.hijack();
      await listener(request.raw, reply.raw);
    };
    instance.all(basePath || '/', handler);
    instance.all(`${basePath}/*`, handler);
  };
}
