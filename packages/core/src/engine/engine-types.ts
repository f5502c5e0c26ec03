import type { Clock } from '../clock.ts';
import type { ChannelDriver, InboundReport, Receipt } from '../ports/channel.ts';
import type { Commit } from '../ports/work-storage.ts';
import type { NewAccount } from '../ports/account-storage.ts';
import type { PasswordHasher } from '../ports/password-hasher.ts';
import type { Storage } from '../ports/storage.ts';
import type { Account, AlphaName, ApiKey, RateCategory, RateLimit, WalletTransaction, WalletTransactionKind } from '../types/account.ts';
import type { BalanceResponse, MessageStatusRecord, SendResponse } from '../types/api.ts';
import type { ChannelId } from '../types/channel.ts';
import type { RateCard } from '../pricing/rate-card.ts';
import type { AccountChannels } from './account-channels.ts';
import type { CascadeService } from './cascade-types.ts';
import type { ReachabilityService } from '../reachability/reachability-memory.ts';
import type { SendMessagesInput, UpdateMessageInput } from './inputs.ts';

/** Options of {@link createEngine}: the storage, the channel drivers and a password hasher are required. */
export interface EngineOptions {
  storage: Storage;
  /** Drivers by channel; a channel without a driver fails its attempts as `not_on_channel`. */
  channels: ChannelDriver[];
  /**
   * Accounts' own drivers (an account's SMPP bind, its Kannel account): an attempt of an account
   * that has its own driver for the channel goes through it, otherwise through `channels`. They
   * are started, recovered and closed with the engine. @default none
   */
  accountChannels?: AccountChannels;
  hasher: PasswordHasher;
  /** @default systemClock */
  clock?: Clock;
  /** @default defaultRateCard */
  rateCard?: RateCard;
  /** Attempt ttl when a message gives none, seconds. @default 86400 */
  defaultTtlSeconds?: number;
  /** Retries on the same channel after throttled/temporary failures. @default 3 */
  maxRetries?: number;
  /** Messages claimed per worker round. @default 500 */
  batchSize?: number;
  /**
   * Whether this engine runs a worker (`start()` then advances messages). An engine without one
   * only accepts and reads (an API process beside worker processes on the same database).
   * @default true
   */
  worker?: boolean;
  /** This worker's id in leases and heartbeats. @default a random UUID */
  workerId?: string;
  /**
   * Called after this engine stored new work (accepted messages, a changed schedule, a receipt):
   * wake workers that run elsewhere (`engine.wake()` in another thread or process). With
   * `handOverTo`, `handedOver` names the accepted messages stored leased to that worker: pass
   * them to its engine's `handOver(ids)`.
   */
  onWork?: (handedOver: readonly number[]) => void;
  /**
   * The `workerId` of a worker elsewhere (the reference server's workers' thread) to which this
   * engine hands the messages it accepts due at once: they are stored leased to that worker, and
   * their ids go to `onWork`, so that it reads them instead of claiming them (one write less a
   * message). Should the ids never reach it, the lease runs out (60 s) or the worker's death
   * releases it, and any worker claims them. Without it, an engine whose own worker is started
   * hands over to that worker. A function is asked at each acceptance (undefined while that worker
   * does not run: then as without it).
   */
  handOverTo?: string | (() => string | undefined);
  /**
   * Whether another writer holds the database's write lock now, so that this engine's worker's
   * commit would only wait for it (the reference server's workers' thread asks whether its HTTP
   * thread is inside an ingest on SQLite): the worker then reads meanwhile the messages handed over
   * to it that its next round takes, and that round takes them without a read.
   */
  writerBusy?: () => boolean;
  /** Sends handed to drivers and not answered yet, at most. @default 4096 */
  maxInFlight?: number;
  /** A driver that has not answered a send after this long fails it temporarily, ms. @default 30000 */
  sendTimeoutMs?: number;
  /** Currency of new accounts. @default 'EUR' */
  currency?: string;
  /** Called after an incoming message from a driver queued its webhook (wake the delivery worker). */
  onInboundQueued?: () => void;
  /** Observes every committed worker round (metrics, audit). Must not throw. */
  onCommit?: (commit: Commit) => void;
  /**
   * Observes every incoming message a driver of this engine's workers reported and that was not
   * taken (no account owns its address, several do, the database failed): the driver refuses it and
   * the provider keeps it (logs, metrics); or it is invalid (`validation_failed`, see
   * `inboundRefusedForGood`), and the driver acknowledges and drops it. `driver` is the one that
   * received it (a failover's member). Must not throw.
   */
  onInboundRefused?: (refusal: { driver: string; message: InboundReport; error: unknown }) => void;
  /** Called with errors the workers survive (a driver throwing, a storage hiccup). */
  onError?: (error: unknown) => void;
  /**
   * How long the reachability memory remembers that a number is not on a channel (a driver's
   * definitive `not_on_channel` answer), seconds; steps it covers are skipped meanwhile. 0 turns
   * it off. `SPILLWAY_REACHABILITY_TTL` in the reference server.
   * @default 604800 (7 days)
   */
  reachabilityTtlSeconds?: number;
  /**
   * Public origin of the server, the base of cascade short links (`${publicBaseUrl}/s/{code}`). A
   * function that throws while the origin is unknown (a `SpillwayError`) refuses the cascades that
   * make a short link, and skips such a step of one already accepted. @default 'http://127.0.0.1:8080'
   */
  publicBaseUrl?: string | (() => string);
}

/** A new account for {@link AccountService.create} and {@link AccountService.ensure}. */
export interface CreateAccountInput {
  login: string;
  password: string;
  name?: string;
  currency?: string;
  /** Opening balance in currency units (not micro-units). */
  balance?: number;
}

/** A new account and an API key of it, made by {@link AccountService.prepare} and not stored yet. */
export interface PreparedAccount {
  /** The account's row, its password hashed. */
  account: NewAccount;
  /** The key: `key` in clear, to answer once, and what the storage keeps of it. Null without a key label. */
  key: { key: string; keyHash: string; prefix: string; label: string } | null;
}

/** Accounts, credentials, alpha-names and wallets. */
export interface AccountService {
  create(input: CreateAccountInput): Promise<Account>;
  /**
   * Makes what storing a new account needs, storing nothing: its password hashed (the slow part)
   * and, with `keyLabel`, an API key drawn and hashed. For a caller that stores the account in one
   * transaction with more (`ClientStorage.createLinkedClient`). Checks the login and password as
   * {@link AccountService.create} does.
   */
  prepare(input: Omit<CreateAccountInput, 'balance'>, keyLabel?: string): Promise<PreparedAccount>;
  get(accountId: number): Promise<Account | null>;
  getByLogin(login: string): Promise<Account | null>;
  /** Creates the account if the login is new; else sets the password if the stored one differs (else writes nothing). Idempotent. */
  ensure(input: CreateAccountInput): Promise<Account>;
  authenticatePassword(login: string, password: string): Promise<Account | null>;
  authenticateKey(key: string): Promise<Account | null>;
  /** Creates an API key; the clear key is answered once and never stored. */
  createKey(accountId: number, label?: string): Promise<{ key: string; apiKey: ApiKey }>;
  /**
   * Registers a key given by configuration (bootstrap); idempotent. A key that was registered and
   * revoked stays revoked: `conflict` with the detail `{ path: 'key', message: 'revoked' }`.
   */
  ensureKey(accountId: number, key: string, label?: string): Promise<ApiKey>;
  listKeys(accountId: number): Promise<ApiKey[]>;
  revokeKey(accountId: number, keyId: number): Promise<boolean>;
  /** Approves an alpha-name on the given channels. @default every channel */
  approveAlphaName(accountId: number, name: string, channels?: ChannelId[]): Promise<AlphaName>;
  listAlphaNames(accountId: number): Promise<AlphaName[]>;
  setAlphaNameCallback(accountId: number, name: string, url: string | null): Promise<AlphaName>;
  setRateLimit(accountId: number, category: RateCategory, limit: RateLimit | null): Promise<void>;
  /** Adds currency units to the wallet as a `topup` transaction. */
  topUp(accountId: number, amount: number, description?: string): Promise<WalletTransaction>;
  balance(accountId: number): Promise<BalanceResponse>;
  walletHistory(
    accountId: number,
    query: { kinds?: WalletTransactionKind[]; page?: number; pageSize?: number },
  ): Promise<{ items: WalletTransaction[]; total: number }>;
}

/**
 * The messaging API (`/bat/...`). The bodies are typed from the zod schemas that validate them
 * (`z.input`), and validated again at run time: a body parsed from a request may be passed as is
 * (cast), and a bad one rejects the whole call with a `validation_failed` `SpillwayError`
 * listing every bad path.
 */
export interface MessagingService {
  /** Validates and accepts a whole send request, or rejects it whole. */
  send(accountId: number, body: SendMessagesInput): Promise<SendResponse>;
  /**
   * The status record of a message of the account. `currency` is the account's (it never changes
   * after creation): a caller that holds the account, as the HTTP layer does, spares a read of it.
   */
  status(accountId: number, messageId: number, currency?: string): Promise<MessageStatusRecord>;
  /** Changes or cancels a message while it is `scheduled`; 409 after. */
  update(accountId: number, messageId: number, body: UpdateMessageInput): Promise<MessageStatusRecord>;
}

/** The running engine: services plus the worker loop that advances machines. */
/** A receipt and the driver it came from (needed when it names only the provider's id). */
export interface ReceiptFrom {
  receipt: Receipt;
  driver?: string;
}

/**
 * What `engine.stop()` left at its deadline: nothing (zeros, false) after a stop that finished in
 * time. What is left is safe to abandon with the process, as a crash is: the worker did not retire,
 * so once its heartbeat is stale another process releases its leases and adopts its attempts.
 */
export interface EngineStopReport {
  /** Sends handed to a driver that had not answered: sent again by the process that claims them, with the same idempotency keys. */
  sendsInFlight: number;
  /** Send results and receipts taken but not applied: a driver's receipts are acknowledged only once applied, an inbox's stay in it. */
  unapplied: number;
  /** A round was still running (its commit waiting for a lock, say): its transaction ends with the process, rolled back unless it committed. */
  roundRunning: boolean;
}

export interface Engine {
  readonly clock: Clock;
  readonly storage: Storage;
  readonly accounts: AccountService;
  readonly messages: MessagingService;
  /** The cascade API, routes, variables and short links. */
  readonly cascades: CascadeService;
  /** The reachability memory: which channels a number was recently found not to be on. */
  readonly reachability: ReachabilityService;
  /** Starts the workers (idempotent). */
  start(): void;
  /**
   * Stops the worker cleanly: it claims nothing new, waits for the round in flight and the sends
   * in flight, applies every result and receipt that arrived, and retires, so that another worker
   * adopts at once whatever outcomes are still to come. All of it within one deadline, `graceMs`
   * from the call: what is still running then is left (see {@link EngineStopReport}) and the stop
   * resolves. Does not close storage.
   * @default graceMs 10000
   */
  stop(graceMs?: number): Promise<EngineStopReport>;
  /**
   * Feeds a receipt to the machine of its message through the durable inbox; resolves once it is
   * stored (a crash after that loses nothing). A receipt naming only the provider's id needs the
   * `driver` that accepted the attempt; behind a failover, the member that carried it as
   * `receipt.driver` (the failover's name in `driver` still finds attempts filed under it before).
   */
  receive(receipt: Receipt, options?: { driver?: string }): Promise<void>;
  /**
   * Feeds receipts as one, as an upstream gateway's callback brings them: every receipt naming an
   * attempt by `messageId` and `step` is checked first, and if one names a message or a step that
   * does not exist nothing is stored (`validation_failed`, with a detail at `[i].messageId` or
   * `[i].step` for each). Otherwise all are stored in one transaction, so a crash stores all or
   * none, and the call resolves once they are durable. Each receipt naming only the provider's id
   * carries the `driver` that accepted the attempt.
   */
  receiveMany(receipts: readonly ReceiptFrom[]): Promise<void>;
  /**
   * Takes an incoming message a driver reported (an MO SMS, a chat reply) to the account owning
   * the address it was sent to (or the one it names), records it and queues its webhook to the
   * alpha-name's callback (section 6) in one transaction; resolves once it is durable. The sender
   * may be written with `00` for `+`. Rejects (`not_found`, `conflict`) when it cannot be routed:
   * the driver then refuses it, so the provider keeps it; and `validation_failed` when the message
   * itself is invalid (a sender that is no phone number, or in national format with no country to read it in): the driver then
   * acknowledges and drops it (`inboundRefusedForGood`).
   */
  receiveInbound(report: InboundReport): Promise<void>;
  /** New work was stored elsewhere (another thread or process): look for it now, not at the next poll. */
  wake(): void;
  /** Messages another engine stored leased to this engine's worker (its `handOverTo`): the worker takes them by id. */
  handOver(ids: readonly number[]): void;
  /**
   * Runs worker rounds until no work is due and no receipt is pending at the clock's current
   * time. Tests call it after `clock.advance()`.
   */
  drain(): Promise<void>;
}
