import { countSegments } from '../sms/segments.ts';
import type { ChannelId } from '../types/channel.ts';
import type { StepSpec } from '../types/message.ts';
import type { Route, RouteStep } from '../types/route.ts';
import type { ValidatedCascade } from './cascade-request.ts';

/** One step of a planned cascade: a {@link StepSpec} before the engine prices it. */
export type CascadeStepDraft = Omit<StepSpec, 'cost' | 'rate' | 'ttl'> & {
  /** Seconds: the step's own timeout, or its share of the cascade's ttl (the deadline budget). */
  ttl: number;
};

/** What {@link planCascade} answers: the drafts of a cascade's steps and when the first is due. */
export interface CascadePlan {
  /** One per route step, in route order (indexes = the machine's step numbers). */
  steps: CascadeStepDraft[];
  /** When the first step is due: `sheduledSent`, or now when absent or past. */
  dueAt: number;
  /** `dueAt + ttl`, when the cascade has a ttl. */
  expiresAt: number | null;
}

/** Options of {@link planCascade}. */
export interface PlanCascadeOptions {
  now: number;
  /** Timeout of a step when neither the step nor the cascade gives one, seconds. */
  defaultStepTimeoutSeconds: number;
  /**
   * Bot credentials given with the request: a bot step without its key is skipped at once, so it
   * takes no share of the ttl. @default both absent
   */
  credentials?: { messenger: boolean; chatappBot: boolean };
}

/**
 * Turns a validated cascade message and its route into the steps the engine stores.
 *
 * Deadline budget: when the cascade has a `ttl`, a step with `timeoutSeconds` keeps it (capped at
 * the ttl) and every other step gets one equal share, the largest whole number of seconds such
 * that every path of the route, with the steps' timeouts added up, ends within the ttl (with one
 * chain of steps, the ttl left after explicit timeouts divided by the steps without one). Bot
 * steps without their credentials take no time. When even 1 s a step does not fit, the steps
 * nearest the end keep their time and the earliest ones are dropped: they get a ttl longer than
 * the cascade's, so the engine skips them. So the last step (SMS) can always finish; the engine
 * also skips (`SKIPPED`) a step that cannot finish in the time actually left. Without a ttl a step
 * takes `timeoutSeconds`, then `chatappMessage.ttl` on chat-app steps, then the default.
 *
 * Texts keep their variable tokens: variables are resolved when a step is sent.
 */
export function planCascade(cascade: ValidatedCascade, route: Route, options: PlanCascadeOptions): CascadePlan {
  const dueAt = Math.max(options.now, cascade.scheduledAt ?? options.now);
  const free = (step: RouteStep) =>
    (step.channel === 'messenger' && !options.credentials?.messenger) ||
    (step.channel === 'chatapp_bot' && !options.credentials?.chatappBot);
  const budget = cascade.ttl === null ? null : deadlineBudget(route, cascade.ttl, free);
  const steps = route.steps.map((step): CascadeStepDraft => {
    const text = textFor(step.channel, cascade);
    const ttl =
      cascade.ttl !== null && budget !== null
        ? budget.dropped.has(step.id)
          ? cascade.ttl + DROPPED_EXTRA_SECONDS
          : Math.min(step.timeoutSeconds ?? budget.share, cascade.ttl)
        : (step.timeoutSeconds ?? (isChat(step.channel) ? cascade.chatappMessage?.ttl : undefined) ?? options.defaultStepTimeoutSeconds);
    const messageData = messageDataFor(step, cascade);
    return {
      channel: step.channel,
      type: typeFor(step.channel, cascade),
      from: cascade.fromName,
      to: cascade.toPhone,
      text,
      ...(messageData ? { messageData } : {}),
      ttl,
      partsCount: step.channel === 'sms' ? countSegments(text).parts : 1,
    };
  });
  return { steps, dueAt, expiresAt: cascade.ttl === null ? null : dueAt + cascade.ttl * 1000 };
}

/**
 * Seconds added to the ttl of a step the budget drops: longer than the whole cascade (and the
 * engine's 1 s of grace), so the deadline check at send always skips it.
 */
export const DROPPED_EXTRA_SECONDS = 2;

/**
 * The largest share (≥ 1 s) of `ttl` for steps without a timeout such that every path fits;
 * `free` steps weigh nothing. When 1 s a step does not fit, steps are dropped from the start
 * side: walking back from the ends, a step whose path to the end would no longer fit is dropped.
 */
function deadlineBudget(route: Route, ttl: number, free: (step: RouteStep) => boolean): { share: number; dropped: Set<string> } {
  const dropped = new Set<string>();
  const weightOf = (share: number) => (s: RouteStep) => (free(s) || dropped.has(s.id) ? 0 : Math.min(s.timeoutSeconds ?? share, ttl));
  const fits = (share: number) => longestPath(route, weightOf(share)) <= ttl;
  if (!fits(1)) {
    const byId = new Map(route.steps.map((s) => [s.id, s] as const));
    const tail = new Map<string, number>();
    const weight = weightOf(1);
    // Reverse topological order: a step's successors are settled before it.
    for (const id of topologicalIds(route).reverse()) {
      const step = byId.get(id) as RouteStep;
      const after = Math.max(0, ...route.edges.filter((e) => e.from === id).map((e) => tail.get(e.to) ?? 0));
      if (weight(step) + after > ttl) dropped.add(id);
      tail.set(id, weight(step) + after);
    }
  }
  let low = 1;
  let high = ttl;
  if (!fits(low)) return { share: 1, dropped };
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fits(mid)) low = mid;
    else high = mid - 1;
  }
  return { share: low, dropped };
}

/** Step ids in an order where every edge goes forward (the route is acyclic once valid). */
function topologicalIds(route: Route): string[] {
  const incoming = new Map<string, number>(route.steps.map((s) => [s.id, 0]));
  for (const e of route.edges) incoming.set(e.to, (incoming.get(e.to) ?? 0) + 1);
  const ready = route.steps.filter((s) => incoming.get(s.id) === 0).map((s) => s.id);
  const order: string[] = [];
  for (let id = ready.shift(); id !== undefined; id = ready.shift()) {
    order.push(id);
    for (const e of route.edges.filter((x) => x.from === id)) {
      const left = (incoming.get(e.to) ?? 0) - 1;
      incoming.set(e.to, left);
      if (left === 0) ready.push(e.to);
    }
  }
  return order;
}

/** Heaviest path from the start (the route is acyclic), by the given step weights. */
function longestPath(route: Route, weight: (step: RouteStep) => number): number {
  const byId = new Map(route.steps.map((s) => [s.id, s] as const));
  const memo = new Map<string, number>();
  const from = (id: string): number => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const step = byId.get(id);
    if (!step) return 0;
    const tails = route.edges.filter((e) => e.from === id).map((e) => from(e.to));
    const total = weight(step) + Math.max(0, ...tails);
    memo.set(id, total);
    return total;
  };
  return from(route.start);
}

const isChat = (channel: ChannelId) => channel === 'chatapp' || channel === 'chatapp_bot';

/** The text a channel sends: its own part of the request first, then the shared text. */
function textFor(channel: ChannelId, c: ValidatedCascade): string {
  const chat = c.chatappMessage?.text;
  const messenger = c.messengerMessage?.text;
  const pick = (...texts: (string | null | undefined)[]) => texts.find((t) => t) ?? '';
  switch (channel) {
    case 'messenger':
      return pick(messenger, c.text, chat, c.flashcallText);
    case 'chatapp':
    case 'chatapp_bot':
      return pick(chat, c.text, messenger, c.flashcallText);
    case 'rcs':
      return pick(c.text, chat, messenger, c.flashcallText);
    case 'sms':
      return pick(c.chatappMessage?.fallbackText, c.text, chat, messenger, c.flashcallText);
    case 'flashcall':
      return pick(c.flashcallText);
  }
}

/** Step type, as the rate card and the drivers know it. */
function typeFor(channel: ChannelId, c: ValidatedCascade): string {
  if (channel !== 'chatapp') return channel;
  if (c.messageType === 'promo') return 'chatapp_promo';
  if (c.messageType === 'chatapp_survey') return 'chatapp_survey';
  return 'chatapp_trans';
}

/** Channel-specific fields (interface 2.2 names); `checkSession` asks the engine to skip without a session. */
function messageDataFor(step: RouteStep, c: ValidatedCascade): Record<string, unknown> | undefined {
  const data: Record<string, unknown> = {};
  const button = c.buttonText && c.buttonAction ? { text: c.buttonText, url: c.buttonAction } : null;
  const options = c.chatappMessage?.survey?.options;
  switch (step.channel) {
    case 'messenger': {
      const m = c.messengerMessage;
      if (m?.chatId !== undefined) data.chatId = m.chatId;
      if (typeof m?.['botName'] === 'string') data.botName = m['botName'];
      if (m?.photoUrl) data.photoUrl = m.photoUrl;
      const buttons = m?.buttons ?? (button ? [{ action: button.url, text: button.text }] : undefined);
      if (buttons) data.buttons = buttons;
      break;
    }
    case 'chatapp':
    case 'chatapp_bot': {
      const { text: _t, fallbackText: _f, ttl: _ttl, survey: _s, ...rest } = c.chatappMessage ?? {};
      Object.assign(data, rest);
      if (c.chatappMessage?.media) data.img = c.chatappMessage.media;
      if (button) Object.assign(data, { buttonText: button.text, buttonAction: button.url });
      if (options) data.survey = { options };
      if (step.requireSession || (c.checkSession && step.channel === 'chatapp')) data.checkSession = true;
      break;
    }
    case 'rcs':
      if (button) data.suggestions = [{ sugText: button.text, sugUrl: button.url }];
      if (c.chatappMessage?.media) data.img = c.chatappMessage.media;
      break;
    case 'sms':
    case 'flashcall':
      break;
  }
  if (step.requireSession) data.checkSession = true;
  return Object.keys(data).length > 0 ? data : undefined;
}
