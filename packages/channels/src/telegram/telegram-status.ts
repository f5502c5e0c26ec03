import type { SendResult } from '@spillway/core';

/** A Bot API answer: `{ ok: true, result }` or `{ ok: false, error_code, description, parameters }`. */
export interface BotApiAnswer {
  ok: boolean;
  result?: { message_id?: number } & Record<string, unknown>;
  error_code?: number;
  description?: string;
  parameters?: { retry_after?: number };
}

/** Descriptions of 400/403 that mean the user cannot be reached through this bot. */
const NOT_ON_CHANNEL = [
  /bot was blocked by the user/i,
  /user is deactivated/i,
  /bot can't initiate conversation/i,
  /chat not found/i,
  /bot was kicked/i,
  /PEER_ID_INVALID/i,
];

/**
 * What a Bot API answer means (the table is in docs/decisions.md): 429 is throttled with
 * `parameters.retry_after`; a blocked bot, a deactivated user, a chat the bot never had are not on
 * this channel; 401 (a bad token) and other 4xx are permanent; 5xx are temporary.
 */
export function botApiOutcome(status: number, answer: BotApiAnswer | null): SendResult {
  if (answer?.ok) {
    const id = answer.result?.message_id;
    return id !== undefined ? { outcome: 'accepted', providerMessageId: String(id) } : { outcome: 'accepted' };
  }
  const code = answer?.error_code ?? status;
  const error = `Bot API ${code}: ${answer?.description ?? 'no description'}`;
  if (code === 429) {
    const after = answer?.parameters?.retry_after;
    return { outcome: 'failed', failure: 'throttled', error, ...(after !== undefined ? { retryAfter: after } : {}) };
  }
  if (code >= 500 || status >= 500) return { outcome: 'failed', failure: 'temporary', error };
  if ((code === 403 || code === 400) && NOT_ON_CHANNEL.some((re) => re.test(answer?.description ?? ''))) {
    return { outcome: 'failed', failure: 'not_on_channel', error };
  }
  return { outcome: 'failed', failure: 'permanent', error };
}
