import type { Account, AlphaName, ApiKey, RateCategory, RateLimit, WalletTransaction, WalletTransactionKind } from '../types/account.ts';
import type { ChannelId } from '../types/channel.ts';

/** An account to store: its login, name, password hash and currency. */
export interface NewAccount {
  login: string;
  name: string;
  /** Password hash as produced by the configured `PasswordHasher`. */
  passwordHash: string;
  currency: string;
}

/** A wallet transaction to store, in signed micro-units. */
export interface NewWalletTransaction {
  accountId: number;
  kind: WalletTransactionKind;
  /** Signed micro-units. */
  amount: number;
  messageId: number | null;
  description: string;
  /**
   * The other account of a move between two; none when absent. The moves between two accounts
   * (`transferBalance`, `ClientStorage.transferBalanceOnce`, `ClientStorage.createLinkedClient`)
   * set it themselves on each row, to the other row's account, whatever their rows carry.
   */
  counterpartAccountId?: number | null;
}

/** A page of an account's wallet history, optionally of some kinds only. */
export interface WalletQuery {
  kinds?: WalletTransactionKind[];
  /** 1-based. */
  page: number;
  pageSize: number;
}

/** Accounts, their credentials, alpha-names and wallets. */
export interface AccountStorage {
  /**
   * Fails with a `conflict` SpillwayError when the login is taken, in any case: logins are one
   * regardless of case (`loginKey`), and the account keeps the spelling it was created with.
   */
  createAccount(input: NewAccount, at: number): Promise<Account>;
  getAccount(id: number): Promise<Account | null>;
  /**
   * The account of the login in any case (`SHOP` finds `shop`). Where logins that differ only by
   * case were kept from before (a database migrated with both), the exact spelling wins, and
   * another finds the oldest of them.
   */
  findAccountByLogin(login: string): Promise<{ account: Account; passwordHash: string } | null>;
  setPasswordHash(accountId: number, passwordHash: string): Promise<void>;
  setRateLimit(accountId: number, category: RateCategory, limit: RateLimit | null): Promise<void>;

  createApiKey(input: { accountId: number; keyHash: string; prefix: string; label: string }, at: number): Promise<ApiKey>;
  findAccountByKeyHash(keyHash: string): Promise<Account | null>;
  listApiKeys(accountId: number): Promise<ApiKey[]>;
  revokeApiKey(accountId: number, keyId: number): Promise<boolean>;
  /**
   * A number that grows, in the same transaction, whenever a credential stops being valid: an API
   * key revoked, a password replaced (`setPasswordHash`), a token revoked (`revokeToken`), a signing
   * key retired (`retireSigningKey`); and when
   * what an authentication carries changes: an account's rate limits (`setRateLimit`). Caches of
   * successful authentications compare it to drop what may have been revoked, in every process.
   */
  credentialRevision(): Promise<number>;

  /** Creates the alpha-name or replaces its approved channels. */
  upsertAlphaName(input: { accountId: number; name: string; channels: ChannelId[] }): Promise<AlphaName>;
  /** Reads the alpha-name now, never memoized: what a refusal on the list's word is checked against. */
  getAlphaName(accountId: number, name: string): Promise<AlphaName | null>;
  /**
   * The account's alpha-names, by name. An adapter may share one read among the calls of a turn of
   * the event loop (a change another connection commits during the turn is seen from the next).
   */
  listAlphaNames(accountId: number): Promise<AlphaName[]>;
  setAlphaNameCallback(accountId: number, name: string, url: string | null): Promise<AlphaName | null>;

  /** Balance in micro-units; 0 for an account without transactions. */
  getBalance(accountId: number): Promise<number>;
  /** Records a transaction and moves the balance, whatever the balance is. */
  addWalletTransaction(tx: NewWalletTransaction, at: number): Promise<WalletTransaction>;
  /**
   * Charges only when the balance covers it (`-tx.amount <= balance`), atomically; null otherwise.
   */
  tryCharge(tx: NewWalletTransaction, at: number): Promise<WalletTransaction | null>;
  /**
   * Credits the account up to `target` micro-units: when its balance is below `target`, records
   * `tx` with the difference as its amount, in one step with the read of the balance (the account's
   * balance locked), so that two callers at once credit it once (processes bootstrapping one
   * database together); null, with nothing written, when the balance already reaches `target`.
   * Fails with a `not_found` SpillwayError for an account that does not exist.
   */
  topUpTo(tx: Omit<NewWalletTransaction, 'amount'>, target: number, at: number): Promise<WalletTransaction | null>;
  /**
   * Moves money between two accounts in one transaction: `debit` (a negative amount) only when the
   * balance covers it, then `credit` (the positive one), both or neither; null when the debit's
   * balance does not cover it (nothing written). Each row names the other's account
   * (`counterpartAccountId`).
   */
  transferBalance(
    debit: NewWalletTransaction,
    credit: NewWalletTransaction,
    at: number,
  ): Promise<[WalletTransaction, WalletTransaction] | null>;
  listWalletTransactions(accountId: number, query: WalletQuery): Promise<{ items: WalletTransaction[]; total: number }>;

  /** Server-wide settings (signing secrets, ...). */
  getSetting(key: string): Promise<string | null>;
  /** Stores `value` unless the key has one; answers the value that is stored. */
  setSettingIfAbsent(key: string, value: string): Promise<string>;
  setSetting(key: string, value: string): Promise<void>;
}
