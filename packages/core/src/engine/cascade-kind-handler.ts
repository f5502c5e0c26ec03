import type { Clock } from '../clock.ts';
import { messengerChatOf } from '../cascade/messenger-chat.ts';
import { newShortCode } from '../cascade/short-code.ts';
import { findVariables, isLinkValue, resolveVariables } from '../cascade/variables.ts';
import { priceAttempt } from '../pricing/price-attempt.ts';
import type { RateCard } from '../pricing/rate-card.ts';
import { countSegments } from '../sms/segments.ts';
import { fillPhoneVariables } from '../clients/phone-data-texts.ts';
import type { Storage } from '../ports/storage.ts';
import type { StoredMessage } from '../types/message.ts';
import { cascadeMetaOf } from './cascade-meta.ts';
import type { KindHandler, SendPreparation } from './kind-handler.ts';
import type { RouteLoader } from './route-loader.ts';

/** A chat-app session is open this long after the recipient's last inbound message. */
export const SESSION_WINDOW_MS = 24 * 3600_000;
/**
 * Slack of the deadline check: a step due exactly at its share of the ttl arrives a few ms late
 * on a real clock, and skipping the last step for that would defeat the budget.
 */
const DEADLINE_GRACE_MS = 1_000;

export interface CascadeHandlerDeps {
  storage: Storage;
  clock: Clock;
  routes: RouteLoader;
  /** Base of short links, `${publicBaseUrl}/s/{code}`; throws when it is unknown (the step is then skipped). */
  publicBaseUrl: () => string;
  defaultTtlSeconds: number;
  /** Prices SMS steps on their resolved text. */
  rateCard: RateCard;
}

const skip = (step: number, reason: string): SendPreparation => ({ instead: { type: 'SKIPPED', step, reason } });

/**
 * How cascade messages run: the machine compiled from the route revision the message keeps
 * (`routeRef`), and the checks right before a step is sent, in order: time left before the
 * cascade's ttl, the alpha-name's approval on the channel, an open session where one is
 * required, the client's bot credentials on bot steps, the chat bound to the number on messenger
 * steps, content, variables (resolved, short links
 * made; link values must still be http(s)), the charge (SMS priced on the resolved text). A failed check skips the step (`SKIPPED`, recorded in history)
 * and the route moves on as if it were undeliverable.
 */
export function cascadeKindHandler(deps: CascadeHandlerDeps): KindHandler {
  const { storage, clock } = deps;

  /**
   * The step text with its variables resolved and short links made; a `%url%`/`%short_url%`
   * value that is no longer an http(s) URL (stored values may change after acceptance) is refused.
   */
  async function resolveText(
    message: StoredMessage,
    text: string,
    inline: { id: string; value: string }[],
  ): Promise<{ text: string } | { refused: string }> {
    const refs = findVariables(text);
    if (refs.length === 0) return { text };
    const values = new Map<string, string>();
    const missing = [...new Set(refs.map((r) => r.id))].filter((id) => !inline.some((v) => v.id === id));
    for (const v of missing.length ? await storage.getVariables(message.accountId, missing) : []) values.set(v.id, v.value);
    for (const v of inline) values.set(v.id, v.value);
    for (const ref of refs) {
      const value = values.get(ref.id);
      if (ref.kind !== 'name' && value !== undefined && !isLinkValue(value)) return { refused: `variable ${ref.id} is not an http(s) URL` };
    }
    const links = new Map<string, string>();
    for (const ref of refs) {
      const url = values.get(ref.id);
      if (ref.kind !== 'short_url' || url === undefined || links.has(url)) continue;
      // No public origin to name (accepted by a process that knew it): the step is skipped, never
      // sent with a wrong link, nor left to fail every round.
      let base: string;
      try {
        base = deps.publicBaseUrl();
      } catch (error) {
        return { refused: `no short link: ${error instanceof Error ? error.message : String(error)}` };
      }
      const link = await storage.createShortLink(
        { code: newShortCode(), accountId: message.accountId, messageId: message.id, url },
        clock.now(),
      );
      links.set(url, `${base}/s/${link.code}`);
    }
    return {
      text: resolveVariables(text, (kind, id) => {
        const value = values.get(id);
        return kind === 'short_url' && value !== undefined ? links.get(value) : value;
      }),
    };
  }

  return {
    async machineFor(message) {
      const ref = message.routeRef ?? 'default@1';
      return { key: `cascade:${ref}`, machine: await deps.routes.machine(ref) };
    },

    async prepareSend(message, step, now) {
      const spec = message.steps[step];
      if (!spec) return skip(step, 'no such step');
      const meta = cascadeMetaOf(message.meta);
      const ttl = spec.ttl ?? deps.defaultTtlSeconds;
      // The deadline budget gives a step a ttl longer than the whole cascade to drop it.
      if (message.expiresAt !== null && ttl * 1000 > message.expiresAt - message.dueAt + DEADLINE_GRACE_MS) {
        return skip(step, 'deadline budget: the ttl is too short for every step, its time went to the later steps');
      }
      if (message.expiresAt !== null && message.expiresAt - now + DEADLINE_GRACE_MS < ttl * 1000) {
        const left = Math.max(0, Math.floor((message.expiresAt - now) / 1000));
        return skip(step, `deadline: ${left} s left of the ttl, the step needs ${ttl} s`);
      }
      const isBot = spec.channel === 'messenger' || spec.channel === 'chatapp_bot';
      if (!isBot) {
        const alpha = await storage.getAlphaName(message.accountId, spec.from);
        if (!alpha?.channels.includes(spec.channel)) return skip(step, `alpha-name "${spec.from}" is not approved on ${spec.channel}`);
      }
      const isChat = spec.channel === 'chatapp' || spec.channel === 'chatapp_bot';
      if (spec.messageData?.['checkSession'] === true || (isChat && meta.checkSession)) {
        const last = await storage.lastInboundAt(message.accountId, spec.from, spec.to);
        if (last === null || now - last > SESSION_WINDOW_MS) return skip(step, 'no open session');
      }
      const botToken =
        spec.channel === 'messenger'
          ? meta.credentials?.messengerBotToken
          : spec.channel === 'chatapp_bot'
            ? meta.credentials?.chatappBotToken
            : undefined;
      if (isBot && !botToken) {
        const header = spec.channel === 'messenger' ? 'X-Tg-Bot-Key' : 'X-Viber-Auth-Token';
        return skip(step, `no bot credentials (send ${header})`);
      }
      // The messenger reaches a number through the chat bound to it.
      let messageData = spec.messageData;
      if (spec.channel === 'messenger') {
        const chat = await messengerChatOf(storage, message.accountId, spec);
        if ('skip' in chat) return skip(step, chat.skip);
        messageData = { ...spec.messageData, chatId: chat.chatId };
      }
      if (!spec.text && !spec.messageData?.['img'] && !spec.messageData?.['photoUrl']) {
        return skip(step, spec.channel === 'flashcall' ? 'no flash-call code (flashcallText)' : 'nothing to send on this channel');
      }
      // Variables first: the SMS is priced on the text actually sent (a long value adds parts).
      const resolved = await resolveText(message, spec.text, meta.variables);
      if ('refused' in resolved) return skip(step, resolved.refused);
      // Then the recipient's per-phone data (`%bonus%`).
      const [filled] = await fillPhoneVariables(storage, message.accountId, [{ ...spec, text: resolved.text }]);
      const text = filled!.text;
      const partsCount = spec.channel === 'sms' ? countSegments(text).parts : spec.partsCount;
      const cost = spec.channel === 'sms' ? priceAttempt(deps.rateCard, { type: spec.type, to: spec.to, partsCount }).cost : spec.cost;
      const description = `cascade ${message.guid ?? message.id} step ${step} (${spec.channel})`;
      return {
        ...(cost > 0 ? { charge: { amount: cost, description } } : {}),
        attempt: { text, partsCount, ...(messageData ? { messageData } : {}), ...(botToken ? { credentials: { botToken } } : {}) },
      };
    },
  };
}
