import type { ChannelId } from '../types/channel.ts';
import type { Route, RouteEdge } from '../types/route.ts';

/** A chain of steps, each moving to the next on undeliverable, permanent error and expiry. */
function chain(id: string, name: string, channels: ChannelId[]): Route {
  const edges: RouteEdge[] = [];
  for (let i = 0; i + 1 < channels.length; i++) {
    const from = channels[i] as string;
    const to = channels[i + 1] as string;
    for (const on of ['undeliverable', 'permanenterror', 'expired'] as const) edges.push({ from, to, on });
  }
  return {
    id,
    name,
    revision: 1,
    start: channels[0] as string,
    steps: channels.map((channel, i) => ({ id: channel, channel, position: { x: 0, y: i * 180 } })),
    edges,
  };
}

/**
 * The route of an account with none bound: messenger bot → chat-app bot → chat-app business →
 * RCS → SMS, each step moving on when undeliverable, permanently failed or expired.
 */
export const defaultRoute: Route = chain('default', 'Default cascade', ['messenger', 'chatapp_bot', 'chatapp', 'rcs', 'sms']);

/**
 * The route of the `messenger-chatapp` endpoints ("messenger bot delivery prioritized"): the
 * messenger bot first, then chat-app business messages before the client's own chat-app bot
 * (the verified business channel is the surer second choice), then RCS and SMS.
 */
export const messengerFirstRoute: Route = chain('messenger-first', 'Messenger first', [
  'messenger',
  'chatapp',
  'chatapp_bot',
  'rcs',
  'sms',
]);

/**
 * The route of `flashcall` cascade messages whose bound route has no flash-call step: the flash
 * call, then the code by SMS.
 */
export const flashcallRoute: Route = chain('flashcall', 'Flash call, then SMS', ['flashcall', 'sms']);

/** Whether `route` has a flash-call step, which a `flashcall` message needs (else it runs on {@link flashcallRoute}). */
export function hasFlashcallStep(route: Pick<Route, 'steps'>): boolean {
  return route.steps.some((s) => s.channel === 'flashcall');
}

/**
 * Built-in routes by id; they are never stored and always have revision 1. The object has no
 * prototype, so that a request for `__proto__`, `constructor` or `toString` finds no route.
 */
export const BUILTIN_ROUTES: Readonly<Record<string, Route>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, Route>, {
    [defaultRoute.id as string]: defaultRoute,
    [messengerFirstRoute.id as string]: messengerFirstRoute,
    [flashcallRoute.id as string]: flashcallRoute,
  }),
);

/** `id@revision`, the reference a running message keeps to the route it was compiled from. */
export function routeRef(route: Pick<Route, 'id' | 'revision'>): string {
  return `${route.id ?? 'draft'}@${route.revision ?? 0}`;
}

/** Splits a {@link routeRef}; null when malformed. */
export function parseRouteRef(ref: string): { id: string; revision: number } | null {
  const at = ref.lastIndexOf('@');
  const revision = Number(ref.slice(at + 1));
  if (at <= 0 || !Number.isInteger(revision) || revision < 0) return null;
  return { id: ref.slice(0, at), revision };
}
