import type { Account, AlphaName, ApiKey, WalletTransaction, WalletTransactionKind } from '../types/account.ts';
import type { NewAccount, NewWalletTransaction } from './account-storage.ts';
import type { ChannelId } from '../types/channel.ts';
import type {
  ApplicationStatus,
  BotReceiver,
  EmailRecord,
  OAuthState,
  PhoneData,
  SocialConnection,
  ClientLink,
  ClientLinkKind,
  ClientProvisionRecord,
  ClientTransferDirection,
  ClientTransferRecord,
  Organization,
  SenderApplication,
  SenderKind,
  StepActivity,
} from '../types/client.ts';

/** An account's alpha-name as a revocation found it (`channels`), and the channels it took and left. */
export interface AlphaNameWithdrawal extends AlphaName {
  /** The channels taken from the name: all of `channels` when it is revoked entirely. */
  withdrawn: ChannelId[];
  /** The channels the name keeps; empty when it is revoked entirely (gone, with its callback URL). */
  left: ChannelId[];
}

/** A sender application (alpha-name or bot) to store, pending a decision. */
export interface NewSenderApplication {
  accountId: number;
  kind: SenderKind;
  name: string;
  channels: ChannelId[];
  details: Record<string, unknown>;
}

/** An organization to store. */
export interface NewOrganization {
  accountId: number;
  name: string;
  taxId: string;
  address: string | null;
  email: string | null;
  phone: string | null;
}

/** A move between a parent and its sub-client to record under the parent's idempotency key. */
export interface NewClientTransfer {
  /** The parent: the account that asks, whose key it is. */
  accountId: number;
  idempotencyKey: string;
  /** The sub-client. */
  clientId: number;
  direction: ClientTransferDirection;
  /** Micro-units to move. */
  amount: number;
}

/**
 * A client account to create with everything it starts with, in one transaction
 * ({@link ClientStorage.createLinkedClient}): its row, its link to the parent, its alpha-names,
 * its API key and its opening balance.
 */
export interface NewLinkedClient {
  account: NewAccount;
  /** Its link; the child is the new account. */
  link: Omit<ClientLink, 'childId'>;
  /** Alpha-names approved for it, on their channels. */
  alphaNames: ReadonlyArray<{ name: string; channels: ChannelId[] }>;
  /** Its API key, hashed (the clear key never reaches the storage); null for none. */
  apiKey: { keyHash: string; prefix: string; label: string } | null;
  /**
   * Money moved to it from another wallet (its parent's): `debit`, a negative amount, only when
   * that wallet covers it, and `credit`, the positive one, on the new account. Null for none.
   */
  opening: { debit: NewWalletTransaction; credit: Omit<NewWalletTransaction, 'accountId'> } | null;
  /**
   * The parent's idempotency key (`link.parentId`'s) for this creation: recorded with it, in its
   * transaction, as a {@link ClientProvisionRecord} of what was written. Null or absent for none.
   */
  idempotencyKey?: string | null;
}

/** What {@link ClientStorage.createLinkedClient} wrote. */
export interface LinkedClientRecord {
  account: Account;
  link: ClientLink;
  alphaNames: AlphaName[];
  apiKey: ApiKey | null;
  /** The debit's row and the credit's, or null without an opening balance. */
  opening: [WalletTransaction, WalletTransaction] | null;
}

/** One page, 1-based. */
export interface PageQuery {
  page: number;
  pageSize: number;
}

/**
 * The records of the client-management API: sender applications, client links, organizations,
 * plus read-only views over the messages and wallet that its statistics need. Passes
 * `runClientStorageContract` from `@spillway/core/testing`.
 */
export interface ClientStorage {
  /**
   * Stores a `pending` application. Fails with a `conflict` SpillwayError while the account has a
   * pending or approved application of the same kind and name.
   */
  createSenderApplication(input: NewSenderApplication, at: number): Promise<SenderApplication>;
  getSenderApplication(id: number): Promise<SenderApplication | null>;
  /** Applications of one account (or of every account with `accountId` null), newest first. */
  listSenderApplications(
    accountId: number | null,
    filter?: { kind?: SenderKind; status?: ApplicationStatus },
  ): Promise<SenderApplication[]>;
  /** Moves a `pending` application to its decision; null when it is not pending (or unknown). */
  decideSenderApplication(
    id: number,
    decision: { status: 'approved' | 'rejected'; reason: string | null },
    at: number,
  ): Promise<SenderApplication | null>;
  /**
   * Revokes the alpha-name `name` of each of `accountIds`, in one transaction: the name is no
   * longer theirs for any read (listed, read or found as though never approved; its callback URL
   * goes with it), and their approved `alpha_name` applications of it become `revoked` with
   * `reason`, `decidedAt` `at`. A memo of the account's alpha-names is forgotten. Answers the
   * alpha-names removed (by account) and the applications revoked; an account without the name
   * is left as it is.
   *
   * With `channels`, only those channels are withdrawn from the name of each account that has
   * one of them (`withdrawChannels`): the name keeps its other channels and its callback URL, and
   * is revoked entirely (as above) when none is left. Of those accounts, the approved applications
   * none of whose channels is left become `revoked`; an account whose name has none of `channels`
   * is left as it is, its applications too.
   */
  revokeAlphaNames(
    accountIds: readonly number[],
    name: string,
    reason: string,
    at: number,
    channels?: readonly ChannelId[],
  ): Promise<{ alphaNames: AlphaNameWithdrawal[]; applications: SenderApplication[] }>;
  /**
   * Revokes the bot `name` of the account, in one statement: its approved applications of `kind`
   * (of both bot kinds without it) become `revoked` with `reason`, `decidedAt` `at`, so that the
   * bot is no longer one of the account's approved bots for any read. Answers them, by id; none
   * when the account has no approved bot of that name (and kind). Its pending, rejected and
   * `alpha_name` applications, and other accounts', are left as they are.
   */
  revokeBotApplications(
    accountId: number,
    name: string,
    reason: string,
    at: number,
    kind?: Exclude<SenderKind, 'alpha_name'>,
  ): Promise<SenderApplication[]>;

  /**
   * Creates a client account whole, in one transaction: the account, its link to the parent, its
   * alpha-names, its API key and its opening balance, all or none, so that a process stopping at
   * any point leaves either the client whole or nothing of it (its login free). Fails with a
   * `conflict` SpillwayError, writing nothing, when the login is taken, as `createAccount` does,
   * when the link's referral id is taken, as `linkClient` does, or when the key is registered, as
   * `createApiKey` does; a login another transaction is creating waits for it. Null, writing
   * nothing, when the wallet of `opening.debit` does not cover it. A memo of alpha-names is forgotten.
   *
   * With `idempotencyKey`, the creation is recorded under the parent's key in the same transaction
   * (read back by {@link ClientStorage.getClientProvision}); when the parent's key is recorded
   * already it fails with a `conflict`, writing nothing (a key another transaction is recording
   * waits for it). A creation that writes nothing records nothing: its key stays free.
   */
  createLinkedClient(client: NewLinkedClient, at: number): Promise<LinkedClientRecord | null>;
  /** The creation recorded under the parent's key (compared exactly), or null. */
  getClientProvision(accountId: number, idempotencyKey: string): Promise<ClientProvisionRecord | null>;
  /**
   * Forgets the keys of the creations recorded before `before` (ms), of every parent (the clients
   * stay): such a key then creates a client as a new one. Answers how many were forgotten.
   */
  pruneClientProvisions(before: number): Promise<number>;
  /** Links `childId` to `parentId`. Fails with `conflict` when the child is linked already or the referral id is taken. */
  linkClient(link: ClientLink): Promise<ClientLink>;
  getClientLink(childId: number): Promise<ClientLink | null>;
  getClientLinkByReferral(parentId: number, referralId: string): Promise<ClientLink | null>;
  /** The accounts linked to `parentId`, oldest first. */
  listClientLinks(parentId: number, kind?: ClientLinkKind): Promise<ClientLink[]>;

  /**
   * Moves money between a parent and its sub-client as `transferBalance` does (`debit`, the paying
   * wallet's row, only when it covers it, then `credit`) and records the move under the parent's
   * key (`transfer.accountId`, `transfer.idempotencyKey`), all in one transaction. When the key is
   * recorded already nothing moves: the recorded move is answered with `replayed: true`, whatever
   * its content (the caller compares it with the request). A request with a key that one in flight
   * holds (another connection or process) waits for it, then answers its record, or moves when it
   * moved nothing. Null when the debit is not covered: nothing is written, the key stays free.
   */
  transferBalanceOnce(
    transfer: NewClientTransfer,
    debit: NewWalletTransaction,
    credit: NewWalletTransaction,
    at: number,
  ): Promise<{ transfer: ClientTransferRecord; replayed: boolean } | null>;
  /**
   * Forgets the keys of the moves recorded before `before` (ms), of every account: a request with
   * such a key then moves money as a new one. Answers how many were forgotten.
   */
  pruneClientTransfers(before: number): Promise<number>;

  /** Fails with `conflict` when the account has an organization with the same tax id. */
  createOrganization(input: NewOrganization, at: number): Promise<Organization>;
  /** The account's organizations, oldest first. */
  listOrganizations(accountId: number, page: PageQuery): Promise<{ items: Organization[]; total: number }>;
  /** The account's organization with this id; null for another account's or an unknown one. */
  getOrganization(accountId: number, id: number): Promise<Organization | null>;
  /** Deletes the account's organization; false when the account has no organization with this id. */
  deleteOrganization(accountId: number, id: number): Promise<boolean>;

  /**
   * Every channel attempt of the account's messages created in `[from, to)`, with the history
   * statuses of each attempt. Read-only over the message tables.
   */
  listStepActivity(accountId: number, range: { from: number; to: number }): Promise<StepActivity[]>;
  /**
   * Wallet transactions of the account tied to messages with an attempt sent from `alphaName`,
   * newest first. Read-only over the wallet and message tables.
   */
  listWalletTransactionsOfAlphaName(
    accountId: number,
    alphaName: string,
    query: { kinds?: WalletTransactionKind[] } & PageQuery,
  ): Promise<{ items: WalletTransaction[]; total: number }>;

  /** Binds (or rebinds) the messenger chat of a phone number for one bot of the account. */
  upsertBotReceiver(receiver: Omit<BotReceiver, 'updatedAt'>, at: number): Promise<BotReceiver>;
  getBotReceiver(accountId: number, botName: string, phoneNumber: string): Promise<BotReceiver | null>;
  /**
   * Removes the binding of (botName, phoneNumber); with `chatId`, only while it binds that chat.
   * False when nothing was removed.
   */
  deleteBotReceiver(accountId: number, botName: string, phoneNumber: string, chatId: string | null): Promise<boolean>;

  /** Stores (replaces) the data of each phone number, all in one transaction. */
  putPhoneData(accountId: number, entries: Array<{ phoneNumber: string; data: Record<string, unknown> }>, at: number): Promise<void>;
  /**
   * Merges each entry into its number's data, all in one transaction (`mergePhoneMembers`): the
   * members given replace the number's, `null` removes one, the others stay; a number given twice
   * takes both entries in order. Two merges of one number at once both count (no member lost). When
   * a merged record's JSON would be longer than `maxChars`, nothing is written and the answer is
   * the indexes of the entries that made one so; otherwise `[]`.
   */
  mergePhoneData(
    accountId: number,
    entries: Array<{ phoneNumber: string; data: Record<string, unknown> }>,
    at: number,
    maxChars: number,
  ): Promise<number[]>;
  getPhoneData(accountId: number, phoneNumber: string): Promise<PhoneData | null>;

  /** Records an e-mail as `pending` before it is handed to SMTP. */
  createEmail(input: NewEmail, at: number): Promise<EmailRecord>;
  /** Records how handing it to SMTP ended. */
  completeEmail(
    id: number,
    outcome: { status: 'sent' | 'failed'; messageId: string | null; error: string | null },
    at: number,
  ): Promise<EmailRecord>;
  getEmail(accountId: number, id: number): Promise<EmailRecord | null>;

  createOAuthState(state: OAuthState): Promise<void>;
  /** Removes and answers the state if it exists and has not expired at `now` (single use). */
  takeOAuthState(state: string, now: number): Promise<OAuthState | null>;
  /** Creates or replaces the connection of (account, alpha-name); an external id belongs to one connection. */
  upsertSocialConnection(connection: SocialConnection): Promise<SocialConnection>;
  getSocialConnection(accountId: number, alphaName: string): Promise<SocialConnection | null>;
  listSocialConnections(accountId: number): Promise<SocialConnection[]>;
  findSocialConnection(externalId: string): Promise<SocialConnection | null>;
  /** Answers whether a connection was removed. */
  deleteSocialConnection(accountId: number, alphaName: string): Promise<boolean>;
}

/** An e-mail to record before it is sent. */
export interface NewEmail {
  accountId: number;
  from: string;
  to: string[];
  subject: string;
}

const CLIENT_STORAGE_METHODS = ['createSenderApplication', 'linkClient', 'createOrganization', 'listStepActivity'] as const;

/** True when a storage adapter implements {@link ClientStorage} (both bundled adapters do). */
export function hasClientStorage<S extends object>(storage: S): storage is S & ClientStorage {
  return CLIENT_STORAGE_METHODS.every((m) => typeof (storage as Record<string, unknown>)[m] === 'function');
}
