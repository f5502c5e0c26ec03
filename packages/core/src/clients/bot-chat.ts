import type { CascadeAccepted } from '../engine/cascade-types.ts';
import type { Engine } from '../engine/engine-types.ts';
import { SpillwayError } from '../errors.ts';
import { unknownBotNames } from './bot-names.ts';
import type { ClientStorage } from '../ports/client-storage.ts';
import { botChatMessageSchema, parseRequest } from './client-requests.ts';
import { applyPhoneVariables, unfilledPhoneVariables, unknownPlaceholderMessage } from './phone-variables.ts';
import { rethrowAt } from '../validation/issue-details.ts';

/** The cascade's error paths (`[0].fromName`) as the members of the chat message the caller sent (`fromName`). */
const asRequestPaths = (error: unknown): never =>
  rethrowAt(error, (path) => path.replace(/^\[0\]\.?/, '').replace(/^toPhone$/, 'phoneNumber'));

/**
 * `POST /api/myCodeBot/sendChatMessage`: one chat message to a number through the account's
 * messenger bot, as a messenger-first cascade (so the engine's validation, billing, fallbacks and
 * status apply). The number's chat must be bound (`PUT /chat_bot/bot_receiver/phone`); its
 * per-phone data fills `%member%` in the text.
 */
export async function sendBotChatMessage(
  engine: Engine,
  storage: ClientStorage,
  accountId: number,
  body: unknown,
  botToken: string | undefined,
): Promise<CascadeAccepted> {
  const req = parseRequest(botChatMessageSchema, body, 'chat message');
  if (!botToken) {
    throw new SpillwayError('validation_failed', 'the messenger bot key is required', [
      { path: 'X-Tg-Bot-Key', message: 'header required' },
    ]);
  }
  const unknownBot = await unknownBotNames(storage, accountId, [{ botName: req.botName, path: 'botName' }]);
  if (unknownBot.length > 0) throw new SpillwayError('validation_failed', unknownBot[0]!.message, unknownBot);
  const receiver = await storage.getBotReceiver(accountId, req.botName, req.phoneNumber);
  if (!receiver) {
    throw new SpillwayError('not_found', `no chat of ${req.phoneNumber} is bound to the bot: PUT /chat_bot/bot_receiver/phone first`);
  }
  const data = (await storage.getPhoneData(accountId, req.phoneNumber))?.data;
  const unknown = unfilledPhoneVariables(req.text, data);
  if (unknown.length > 0) {
    throw new SpillwayError('validation_failed', 'The chat message is invalid', [
      { path: 'text', message: unknownPlaceholderMessage(unknown, req.phoneNumber, data) },
    ]);
  }
  const text = applyPhoneVariables(req.text, data);
  const [accepted] = await engine.cascades
    .send(
      accountId,
      [
        {
          toPhone: req.phoneNumber,
          ...(req.fromName ? { fromName: req.fromName } : {}),
          text,
          // The bot named, so that its costs are the bot's (`GET /api/Costs/bots`).
          messengerMessage: {
            text,
            chatId: Number(receiver.chatId),
            ...(req.botName ? { botName: req.botName } : {}),
            ...(req.buttons ? { buttons: req.buttons } : {}),
          },
        },
      ],
      { endpoint: 'messenger-first', credentials: { messengerBotToken: botToken } },
    )
    .catch(asRequestPaths);
  return accepted!;
}
