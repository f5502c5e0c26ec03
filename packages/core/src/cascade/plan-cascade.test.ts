import { describe, expect, it } from 'vitest';
import { DROPPED_EXTRA_SECONDS, planCascade } from './plan-cascade.ts';
import { parseCascadeRequest } from './cascade-request.ts';
import { defaultRoute } from '../routes/builtin-routes.ts';
import type { Route } from '../types/route.ts';

const now = Date.UTC(2026, 0, 1);
// Both bot keys given: every step of the default route takes its share.
const opts = { now, defaultStepTimeoutSeconds: 86400, credentials: { messenger: true, chatappBot: true } };
const one = (item: Record<string, unknown>) => parseCascadeRequest([{ fromName: 'Shop', toPhone: '99912345600', ...item }], { now })[0]!;

describe('planCascade', () => {
  it('plans one step per route step with the text each channel sends', () => {
    const c = one({
      text: 'plain',
      chatappMessage: { text: 'chat', fallbackText: 'fallback' },
      messengerMessage: { text: 'bot', chatId: 5 },
    });
    const plan = planCascade(c, defaultRoute, opts);
    expect(plan.steps.map((s) => [s.channel, s.type, s.text])).toEqual([
      ['messenger', 'messenger', 'bot'],
      ['chatapp_bot', 'chatapp_bot', 'chat'],
      ['chatapp', 'chatapp_trans', 'chat'],
      ['rcs', 'rcs', 'plain'],
      ['sms', 'sms', 'fallback'],
    ]);
    expect(plan.steps[0]).toMatchObject({ from: 'Shop', to: '99912345600', ttl: 86400, partsCount: 1, messageData: { chatId: 5 } });
    expect(plan).toMatchObject({ dueAt: now, expiresAt: null });
  });

  it('falls back to the shared text and counts SMS parts', () => {
    const plan = planCascade(one({ text: 'x'.repeat(200) }), defaultRoute, opts);
    expect(plan.steps.every((s) => s.text === 'x'.repeat(200))).toBe(true);
    expect(plan.steps[4]?.partsCount).toBe(2);
  });

  it('splits the ttl evenly along the chain and keeps explicit timeouts', () => {
    const plan = planCascade(one({ text: 'a', ttl: 1000, sheduledSent: '2026-01-01T01:00:00Z' }), defaultRoute, opts);
    expect(plan.steps.map((s) => s.ttl)).toEqual([200, 200, 200, 200, 200]);
    expect(plan.dueAt).toBe(now + 3600_000);
    expect(plan.expiresAt).toBe(now + 3600_000 + 1000_000);
    const timed: Route = { ...defaultRoute, steps: defaultRoute.steps.map((s, i) => (i === 0 ? { ...s, timeoutSeconds: 600 } : s)) };
    expect(planCascade(one({ text: 'a', ttl: 1000 }), timed, opts).steps.map((s) => s.ttl)).toEqual([600, 100, 100, 100, 100]);
  });

  it('sizes the share by the heaviest path of a branching route', () => {
    const route: Route = {
      name: 'branch',
      start: 'a',
      steps: [
        { id: 'a', channel: 'chatapp' },
        { id: 'b', channel: 'rcs', timeoutSeconds: 50 },
        { id: 'c', channel: 'messenger' },
        { id: 'd', channel: 'sms' },
      ],
      edges: [
        { from: 'a', to: 'b', on: 'undeliverable' },
        { from: 'a', to: 'c', on: 'expired' },
        { from: 'c', to: 'd', on: 'undeliverable' },
        { from: 'b', to: 'd', on: 'undeliverable' },
      ],
    };
    // a-c-d needs 3 shares, a-b-d needs 2 shares + 50: 3s <= 300 and 2s + 50 <= 300 → s = 100.
    expect(planCascade(one({ text: 'a', ttl: 300 }), route, opts).steps.map((s) => s.ttl)).toEqual([100, 50, 100, 100]);
    // a-b-d binds when explicit timeouts dominate: 2s + 50 <= 150 → 50, 3s <= 150 → 50.
    expect(planCascade(one({ text: 'a', ttl: 150 }), route, opts).steps.map((s) => s.ttl)).toEqual([50, 50, 50, 50]);
    // An explicit timeout as long as the ttl would leave the last step no time: it is dropped
    // and the others share the ttl (a-c-d: 3 shares <= 40 → 13).
    expect(planCascade(one({ text: 'a', ttl: 40 }), route, opts).steps.map((s) => s.ttl)).toEqual([13, 40 + DROPPED_EXTRA_SECONDS, 13, 13]);
  });

  it('uses chatappMessage.ttl on chat-app steps without a cascade ttl', () => {
    const plan = planCascade(one({ chatappMessage: { text: 'c', ttl: 120 } }), defaultRoute, opts);
    expect(plan.steps.map((s) => s.ttl)).toEqual([86400, 120, 120, 86400, 86400]);
  });

  it('carries promo buttons, survey options, sessions and flash call codes', () => {
    const promo = planCascade(
      one({
        messageType: 'promo',
        text: 'Sale',
        buttonText: 'Buy',
        buttonAction: 'https://s.example',
        wheterCheckSession: true,
        chatappMessage: { text: 'Sale!', media: 'https://s.example/i.png' },
      }),
      defaultRoute,
      opts,
    );
    expect(promo.steps.map((s) => s.messageData)).toEqual([
      { buttons: [{ action: 'https://s.example', text: 'Buy' }] },
      { media: 'https://s.example/i.png', img: 'https://s.example/i.png', buttonText: 'Buy', buttonAction: 'https://s.example' },
      {
        media: 'https://s.example/i.png',
        img: 'https://s.example/i.png',
        buttonText: 'Buy',
        buttonAction: 'https://s.example',
        checkSession: true,
      },
      { suggestions: [{ sugText: 'Buy', sugUrl: 'https://s.example' }], img: 'https://s.example/i.png' },
      undefined,
    ]);
    expect(promo.steps[2]?.type).toBe('chatapp_promo');
    const survey = planCascade(
      one({ messageType: 'chatapp_survey', chatappMessage: { text: 'Q', survey: { options: ['🙂', '🙁'] } } }),
      defaultRoute,
      opts,
    );
    expect(survey.steps[2]).toMatchObject({ type: 'chatapp_survey', messageData: { survey: { options: ['🙂', '🙁'] } } });
    const flash: Route = {
      name: 'f',
      start: 'f',
      steps: [
        { id: 'f', channel: 'flashcall' },
        { id: 's', channel: 'sms' },
      ],
      edges: [{ from: 'f', to: 's', on: 'undeliverable' }],
    };
    const call = planCascade(one({ messageType: 'flashcall', flashcallText: '4321' }), flash, opts);
    expect(call.steps.map((s) => [s.type, s.text])).toEqual([
      ['flashcall', '4321'],
      ['sms', '4321'],
    ]);
  });

  it('keeps the last steps when the ttl is shorter than one second a step, dropping the earliest', () => {
    const plan = planCascade(one({ text: 'a', ttl: 3 }), defaultRoute, opts);
    const dropped = 3 + DROPPED_EXTRA_SECONDS;
    expect(plan.steps.map((s) => s.ttl)).toEqual([dropped, dropped, 1, 1, 1]);
    expect(plan.steps[4]?.channel).toBe('sms');
  });

  it('gives no share to bot steps that will be skipped for lack of credentials', () => {
    const none = { now, defaultStepTimeoutSeconds: 86400 };
    // chatapp, RCS and SMS share 300 s; the bot steps are skipped at once.
    expect(planCascade(one({ text: 'a', ttl: 300 }), defaultRoute, none).steps.map((s) => s.ttl)).toEqual([100, 100, 100, 100, 100]);
    const tg = { ...none, credentials: { messenger: true, chatappBot: false } };
    expect(planCascade(one({ text: 'a', ttl: 300 }), defaultRoute, tg).steps.map((s) => s.ttl)).toEqual([75, 75, 75, 75, 75]);
    // Three seconds are enough for the three steps that can run.
    expect(planCascade(one({ text: 'a', ttl: 3 }), defaultRoute, none).steps.map((s) => s.ttl)).toEqual([1, 1, 1, 1, 1]);
  });
});
