import { hasClientStorage } from '../ports/client-storage.ts';
import type { Storage } from '../ports/storage.ts';
import type { StepSpec } from '../types/message.ts';

/**
 * The messenger chat a messenger step goes to: `messengerMessage.chatId` when the request gave
 * one, else the account's bot-receiver binding of the number (`PUT /chat_bot/bot_receiver/phone`,
 * for `messengerMessage.botName`, default the account's only bot ''). A phone number is never a
 * chat id: without either, the step cannot be sent and is skipped with the reason.
 */
export async function messengerChatOf(
  storage: Storage,
  accountId: number,
  spec: Pick<StepSpec, 'to' | 'messageData'>,
): Promise<{ chatId: string } | { skip: string }> {
  const given = spec.messageData?.['chatId'];
  if (typeof given === 'number' || (typeof given === 'string' && given !== '')) return { chatId: String(given) };
  const botName = typeof spec.messageData?.['botName'] === 'string' ? (spec.messageData['botName'] as string) : '';
  const bound = hasClientStorage(storage) ? await storage.getBotReceiver(accountId, botName, spec.to) : null;
  if (bound) return { chatId: bound.chatId };
  const bot = botName ? ` of bot "${botName}"` : '';
  return { skip: `no messenger chat${bot} is bound to ${spec.to} (PUT /chat_bot/bot_receiver/phone)` };
}
