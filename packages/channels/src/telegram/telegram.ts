import type { ChannelContext, ChannelDriver, OutboundAttempt, SendResult } from '@spillway/core';
import { botApiOutcome } from './telegram-status.ts';
import type { BotApiAnswer } from './telegram-status.ts';

/** Options of {@link createTelegramDriver}. */
export interface TelegramOptions {
  /** @default 'telegram' */
  name?: string;
  /** The Bot API origin. @default 'https://api.telegram.org' */
  apiUrl?: string;
  /** A bot token for attempts that carry none (the client's own comes with the attempt, `X-Tg-Bot-Key`). */
  botToken?: string;
  /**
   * The chat of a recipient. @default `messageData.chatId`, which the engine sets from the
   * bot-receiver binding of the number (`PUT /chat_bot/bot_receiver/phone`) or the request's
   * `messengerMessage.chatId`. A phone number is never taken for a chat id. `null` means the
   * recipient never started the bot (not on this channel).
   */
  resolveChatId?: (attempt: OutboundAttempt) => Promise<string | null> | string | null;
  /** @default 10000 */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

interface Button {
  text?: unknown;
  action?: unknown;
}

/** Inline keyboard of `messageData.buttons` (`{ text, action }`): a URL action opens it, any other is callback data. */
function keyboard(buttons: unknown): { inline_keyboard: Record<string, string>[][] } | undefined {
  if (!Array.isArray(buttons) || buttons.length === 0) return undefined;
  const row = (buttons as Button[]).map((b): Record<string, string> => {
    const text = String(b.text ?? '');
    const action = String(b.action ?? text);
    return /^https?:\/\//.test(action) ? { text, url: action } : { text, callback_data: action.slice(0, 64) };
  });
  return { inline_keyboard: row.map((b) => [b]) };
}

/**
 * The messenger bot channel on the Telegram Bot API: `sendMessage`, or `sendPhoto` when
 * `messageData.photoUrl` is set, with inline keyboard buttons. The Bot API has no delivery
 * receipts: a message it took is in the chat, so it is reported delivered right after acceptance.
 *
 * @example createTelegramDriver({ resolveChatId: (a) => bindings.chatOf(a.accountId, a.to) })
 */
export function createTelegramDriver(options: TelegramOptions = {}): ChannelDriver {
  const name = options.name ?? 'telegram';
  const api = (options.apiUrl ?? 'https://api.telegram.org').replace(/\/+$/, '');
  const doFetch = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? 10_000;
  let closed = false;

  async function call(token: string, method: string, body: Record<string, unknown>): Promise<SendResult> {
    try {
      const res = await doFetch(`${api}/bot${token}/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const answer = (await res.json().catch(() => null)) as BotApiAnswer | null;
      return botApiOutcome(res.status, answer);
    } catch (error) {
      return { outcome: 'failed', failure: 'temporary', error: `Bot API unreachable: ${(error as Error).message}` };
    }
  }

  async function chatOf(attempt: OutboundAttempt): Promise<string | null> {
    if (options.resolveChatId) return options.resolveChatId(attempt);
    const fromData = attempt.messageData?.['chatId'];
    return typeof fromData === 'number' || (typeof fromData === 'string' && fromData) ? String(fromData) : null;
  }

  return {
    name,
    channels: ['messenger'],
    async send(attempt: OutboundAttempt, ctx: ChannelContext): Promise<SendResult> {
      if (closed) return { outcome: 'failed', failure: 'temporary', error: `${name} is closed` };
      const token = attempt.credentials?.botToken ?? options.botToken;
      if (!token) return { outcome: 'failed', failure: 'permanent', error: 'no bot token (X-Tg-Bot-Key)' };
      const chatId = await chatOf(attempt);
      if (chatId === null) return { outcome: 'failed', failure: 'not_on_channel', error: 'the recipient never started the bot' };
      const markup = keyboard(attempt.messageData?.['buttons']);
      const photo = attempt.messageData?.['photoUrl'];
      const result =
        typeof photo === 'string' && photo
          ? await call(token, 'sendPhoto', { chat_id: chatId, photo, caption: attempt.text, ...(markup ? { reply_markup: markup } : {}) })
          : await call(token, 'sendMessage', { chat_id: chatId, text: attempt.text, ...(markup ? { reply_markup: markup } : {}) });
      if (result.outcome === 'accepted') {
        const { messageId, step } = attempt;
        // After the acceptance is recorded: the engine sees ACCEPTED, then DELIVERED.
        ctx.clock.setTimeout(() => void ctx.report({ messageId, step, outcome: 'delivered' }).catch(() => undefined), 0);
        return { outcome: 'accepted', ...(result.providerMessageId ? { providerMessageId: `${chatId}:${result.providerMessageId}` } : {}) };
      }
      return result;
    },
    async check() {
      if (!options.botToken) return { ok: true, detail: 'bot tokens come with each request (X-Tg-Bot-Key): nothing to check' };
      try {
        const res = await doFetch(`${api}/bot${options.botToken}/getMe`, { signal: AbortSignal.timeout(timeoutMs) });
        const answer = (await res.json()) as BotApiAnswer;
        return answer.ok
          ? { ok: true, detail: `bot @${String(answer.result?.['username'])}` }
          : { ok: false, detail: `getMe: ${answer.description ?? res.status}` };
      } catch (error) {
        return { ok: false, detail: `Bot API unreachable: ${(error as Error).message}` };
      }
    },
    async close() {
      closed = true;
    },
  };
}
