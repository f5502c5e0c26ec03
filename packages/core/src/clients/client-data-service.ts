import type { Clock } from '../clock.ts';
import { unknownBotNames } from './bot-names.ts';
import { SpillwayError } from '../errors.ts';
import type { ClientStorage } from '../ports/client-storage.ts';
import type { EmailTransport } from '../ports/email-transport.ts';
import type { Storage } from '../ports/storage.ts';
import type { BotReceiver, EmailRecord, PhoneData } from '../types/client.ts';
import { botCosts } from './bot-costs.ts';
import type { BotCostRow } from './bot-costs.ts';
import {
  MAX_PHONE_DATA_BYTES,
  botReceiverRemovalSchema,
  botReceiverRequestSchema,
  parseRequest,
  phoneDataObjectSchema,
  readPhoneNumberParam,
  sendEmailSchema,
  userBonusBulkSchema,
} from './client-requests.ts';
import { storableCalls } from '../validation/storable-calls.ts';

/** What {@link createClientDataService} needs: client storage, the clock and, for e-mail, a transport. */
export interface ClientDataServiceDeps {
  storage: Storage & ClientStorage;
  clock: Clock;
  /** Without it `sendEmail` answers `not_configured` (501): e-mail is not configured. */
  email?: EmailTransport | undefined;
}

/** Bot receivers and costs, per-phone data and e-mail of an account. */
export interface ClientDataService {
  bindBotReceiver(accountId: number, body: unknown): Promise<BotReceiver>;
  botReceiver(accountId: number, botName: string, phoneNumber: string): Promise<BotReceiver | null>;
  /**
   * Removes the binding the body names as the PUT does (botName, phoneNumber): the messenger step
   * no longer finds a chat for the number. With the PUT's `chatId`, only while it binds that chat
   * (409 once rebound to another); 404 when nothing is bound.
   */
  unbindBotReceiver(accountId: number, body: unknown): Promise<void>;
  botCosts(accountId: number, range: { from: number; to: number; botName?: string; country?: string }): Promise<BotCostRow[]>;
  /**
   * Merges the data of many numbers in one transaction (the members given replace the number's,
   * `null` removes one, the others stay); answers how many numbers.
   */
  putPhoneDataBulk(accountId: number, body: unknown): Promise<number>;
  /** Merges the data of one number, as the bulk upload does; answers the number's data. */
  putPhoneData(accountId: number, phoneNumber: string, body: unknown): Promise<PhoneData>;
  getPhoneData(accountId: number, phoneNumber: string): Promise<PhoneData>;
  /**
   * Records the e-mail, hands it to SMTP and records the outcome. A refusal for good is a `failed`
   * record, not a throw; a server that could not take it now leaves the record `failed` and throws
   * `upstream_unavailable` (503), its error as the `cause` (for the log, never for the caller).
   */
  sendEmail(accountId: number, body: unknown): Promise<EmailRecord>;
  getEmail(accountId: number, id: number): Promise<EmailRecord>;
}

const MAX_COST_DAYS = 366;

/** The record's error when the mail server could not take an e-mail now (the detail is the operator's). */
const UNAVAILABLE = 'the mail server is unavailable (unreachable, not answering or refusing for now)';

/** A transport's refusal of the e-mail for good, its message fit for the caller (`EmailTransport`). */
function isRefusal(error: unknown): error is Error & { refused: true } {
  return error instanceof Error && (error as { refused?: unknown }).refused === true;
}
const DAY = 86_400_000;

function checkSize(data: Record<string, unknown>, path: string): void {
  if (JSON.stringify(data).length > MAX_PHONE_DATA_BYTES) {
    throw new SpillwayError('validation_failed', `the data of a number is limited to ${MAX_PHONE_DATA_BYTES} bytes`, [
      { path, message: 'too large' },
    ]);
  }
}

/** Refuses a merge that nothing was written of because the merged data of some numbers is too large. */
function mergedSize(tooLarge: number[], pathOf: (index: number) => string): void {
  if (tooLarge.length === 0) return;
  throw new SpillwayError(
    'validation_failed',
    `the data of a number is limited to ${MAX_PHONE_DATA_BYTES} bytes`,
    tooLarge.map((i) => ({ path: pathOf(i), message: 'too large once merged with the number’s data (remove members with null)' })),
  );
}

/** The bot receivers, bot chat, per-phone data and e-mail endpoints of the client-management API. */
export function createClientDataService(deps: ClientDataServiceDeps): ClientDataService {
  const { storage, clock } = deps;
  // The DELETE takes any name, so that a binding made before bot names were checked can still go.
  const knownBot = async (accountId: number, botName: string) => {
    const details = await unknownBotNames(storage, accountId, [{ botName, path: 'botName' }]);
    if (details.length > 0) throw new SpillwayError('validation_failed', details[0]!.message, details);
  };
  // Every call is looked through before it runs, as the engine's own services are: U+0000 refused
  // at its path, lone surrogates made U+FFFD.
  return storableCalls({
    async bindBotReceiver(accountId, body) {
      const req = parseRequest(botReceiverRequestSchema, body, 'bot receiver');
      await knownBot(accountId, req.botName);
      return storage.upsertBotReceiver({ accountId, ...req }, clock.now());
    },
    async botReceiver(accountId, botName, phoneNumber) {
      await knownBot(accountId, botName);
      return storage.getBotReceiver(accountId, botName, phoneNumber);
    },
    async unbindBotReceiver(accountId, body) {
      const { botName, phoneNumber, chatId } = parseRequest(botReceiverRemovalSchema, body, 'bot receiver');
      if (await storage.deleteBotReceiver(accountId, botName, phoneNumber, chatId ?? null)) return;
      const bot = botName ? ` of bot "${botName}"` : '';
      if (chatId !== undefined && (await storage.getBotReceiver(accountId, botName, phoneNumber))) {
        throw new SpillwayError('conflict', `${phoneNumber} is bound to another chat${bot} than ${chatId}`);
      }
      throw new SpillwayError('not_found', `no messenger chat${bot} is bound to ${phoneNumber}`);
    },

    async botCosts(accountId, range) {
      if (!(range.from < range.to))
        throw new SpillwayError('validation_failed', 'the first date must be before the second', [
          { path: 'date', message: 'empty period' },
        ]);
      if (range.to - range.from > MAX_COST_DAYS * DAY) {
        throw new SpillwayError('validation_failed', `the period is longer than ${MAX_COST_DAYS} days`, [
          { path: 'date', message: 'period too long' },
        ]);
      }
      const activity = await storage.listStepActivity(accountId, range);
      return botCosts(activity, {
        ...(range.botName ? { botName: range.botName } : {}),
        ...(range.country ? { country: range.country } : {}),
      });
    },

    async putPhoneDataBulk(accountId, body) {
      const items = parseRequest(userBonusBulkSchema, body, 'user data');
      const entries = items.map(({ phoneNumber, ...data }, i) => {
        checkSize(data, `[${i}]`);
        return { phoneNumber, data };
      });
      mergedSize(await storage.mergePhoneData(accountId, entries, clock.now(), MAX_PHONE_DATA_BYTES), (i) => `[${i}]`);
      return new Set(entries.map((e) => e.phoneNumber)).size;
    },
    async putPhoneData(accountId, rawPhone, body) {
      const phoneNumber = readPhoneNumberParam(rawPhone);
      const data = parseRequest(phoneDataObjectSchema, body, 'user data');
      checkSize(data, '(body)');
      mergedSize(await storage.mergePhoneData(accountId, [{ phoneNumber, data }], clock.now(), MAX_PHONE_DATA_BYTES), () => '(body)');
      return (await storage.getPhoneData(accountId, phoneNumber))!;
    },
    async getPhoneData(accountId, rawPhone) {
      const phoneNumber = readPhoneNumberParam(rawPhone);
      const found = await storage.getPhoneData(accountId, phoneNumber);
      if (!found) throw new SpillwayError('not_found', `no data for ${phoneNumber}`);
      return found;
    },

    async sendEmail(accountId, body) {
      const req = parseRequest(sendEmailSchema, body, 'e-mail');
      const transport = deps.email;
      if (!transport) throw new SpillwayError('not_configured', 'e-mail is not configured on this server (SPILLWAY_SMTP_URL)');
      const record = await storage.createEmail({ accountId, from: transport.from, to: req.to, subject: req.subject }, clock.now());
      let accepted: Awaited<ReturnType<EmailTransport['send']>>;
      try {
        accepted = await transport.send({ from: transport.from, ...req });
      } catch (error) {
        if (isRefusal(error)) {
          return storage.completeEmail(record.id, { status: 'failed', messageId: null, error: error.message.slice(0, 1000) }, clock.now());
        }
        // Nothing of the error reaches the caller: it names the mail server's host and port.
        const reason = `${UNAVAILABLE}; the e-mail was not sent`;
        await storage.completeEmail(record.id, { status: 'failed', messageId: null, error: reason }, clock.now());
        throw new SpillwayError(
          'upstream_unavailable',
          `e-mail ${record.id} was not sent: ${UNAVAILABLE}; retry later (GET /api/email/${record.id} shows it failed)`,
          undefined,
          { cause: error },
        );
      }
      // Sent to the others; the ones the server refused are named, not hidden behind `sent`.
      const { messageId, rejected } = accepted;
      const error = rejected?.length ? `the SMTP server refused ${rejected.join(', ')}`.slice(0, 1000) : null;
      return storage.completeEmail(record.id, { status: 'sent', messageId, error }, clock.now());
    },
    async getEmail(accountId, id) {
      const found = await storage.getEmail(accountId, id);
      if (!found) throw new SpillwayError('not_found', `e-mail ${id} does not exist`);
      return found;
    },
  });
}
