import { SpillwayError } from '@spillway/core';
import type { HttpLogger } from './env.ts';

/** Whether a server listening on `hostname` listens on every address (`0.0.0.0`, `::`). */
export function isWildcardHost(hostname: string): boolean {
  return hostname === '0.0.0.0' || hostname === '::' || hostname === '[::]';
}

/**
 * The origin a Node server listening on `hostname:port` is called at: the address itself, or
 * 127.0.0.1 for a wildcard one (`0.0.0.0`, `::`), which names no host anyone could call; an IPv6
 * address in brackets.
 *
 * @example
 * listenOrigin('0.0.0.0', 3000) // 'http://127.0.0.1:3000'
 */
export function listenOrigin(hostname: string, port: number): string {
  const host = isWildcardHost(hostname) ? '127.0.0.1' : hostname;
  return `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;
}

/** What a short link asked without a known origin answers, and the warning logged the first time. */
export const NO_PUBLIC_URL =
  'short links need publicUrl: Spillway is mounted in your app (no listen()), so it cannot know the address a phone reaches it at; ' +
  "pass createSpillway({ publicUrl: 'https://shop.example/spillway' }), basePath included";

/**
 * The public base of `createSpillway`'s short links: `publicUrl` when given; otherwise where its own
 * `listen()` serves (`listening`), basePath included. Mounted in a host's server without
 * `publicUrl` there is no address to name: a guess (the engine's old `http://127.0.0.1:8080`) went
 * into texts that can never be taken back, so it throws `not_configured` instead, warning once.
 */
export function createPublicUrl(options: { publicUrl: string | (() => string) | undefined; basePath: string; logger: HttpLogger }): {
  base: string | (() => string);
  listening(hostname: string, port: number): void;
} {
  let served: string | null = null;
  let warned = false;
  return {
    base:
      options.publicUrl ??
      (() => {
        if (served) return served;
        if (!warned) options.logger.warn(`createSpillway: ${NO_PUBLIC_URL}`);
        warned = true;
        throw new SpillwayError('not_configured', NO_PUBLIC_URL);
      }),
    listening(hostname, port) {
      served = `${listenOrigin(hostname, port)}${options.basePath}`;
    },
  };
}
