import type Database from 'better-sqlite3';
import { SpillwayError } from '@spillway/core';
import {
  botReceiverFromRow,
  clientLinkFromRow,
  emailFromRow,
  oauthStateFromRow,
  socialConnectionFromRow,
  phoneDataFromRow,
  mergePhoneEntries,
  organizationFromRow,
  stepActivitiesOf,
  walletTransactionFromRow,
} from '@spillway/core/storage';
import type { ClientStorage, StepSpec } from '@spillway/core';
import type {
  BotReceiverRow,
  EmailRow,
  OAuthStateRow,
  SocialConnectionRow,
  ClientLinkRow,
  OrganizationRow,
  WalletTransactionRow,
} from '@spillway/core/storage';
import { accountInserts } from './account-inserts.ts';
import { createAlphaNameRevocation } from './alpha-name-revocation.ts';
import { createClientProvisionStore } from './client-provision-store.ts';
import { createClientTransferStore } from './client-transfer-store.ts';
import { createLinkedClientCreation } from './linked-client-creation.ts';
import { toSenderApplication } from './rows.ts';
import type { SqliteSenderApplicationRow } from './rows.ts';
import { conflictOnUnique } from './sqlite-util.ts';

/**
 * Migrations of the client-management tables, appended to the storage's migrations in order.
 * Append new versions, never edit an applied one.
 */
export const CLIENT_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE sender_applications (
    id         INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    kind       TEXT NOT NULL,
    name       TEXT NOT NULL,
    channels   TEXT NOT NULL,
    details    TEXT NOT NULL,
    status     TEXT NOT NULL,
    reason     TEXT,
    created_at INTEGER NOT NULL,
    decided_at INTEGER
  );
  -- At most one live (pending or approved) application per sender; rejected ones may be retried.
  CREATE UNIQUE INDEX sender_applications_live ON sender_applications(account_id, kind, name)
    WHERE status IN ('pending', 'approved');
  CREATE INDEX sender_applications_status ON sender_applications(status, id);

  CREATE TABLE client_links (
    child_id    INTEGER PRIMARY KEY REFERENCES accounts(id),
    parent_id   INTEGER NOT NULL REFERENCES accounts(id),
    kind        TEXT NOT NULL,
    referral_id TEXT,
    created_at  INTEGER NOT NULL
  );
  CREATE INDEX client_links_parent ON client_links(parent_id, child_id);
  CREATE UNIQUE INDEX client_links_referral ON client_links(parent_id, referral_id) WHERE referral_id IS NOT NULL;

  CREATE TABLE organizations (
    id         INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    name       TEXT NOT NULL,
    tax_id     TEXT NOT NULL,
    address    TEXT,
    email      TEXT,
    phone      TEXT,
    created_at INTEGER NOT NULL,
    UNIQUE (account_id, tax_id)
  );

  CREATE INDEX messages_account_created ON messages(account_id, created_at);
  `,
  `
  CREATE TABLE bot_receivers (
    account_id   INTEGER NOT NULL REFERENCES accounts(id),
    bot_name     TEXT NOT NULL,
    phone_number TEXT NOT NULL,
    chat_id      TEXT NOT NULL,
    updated_at   INTEGER NOT NULL,
    PRIMARY KEY (account_id, bot_name, phone_number)
  ) WITHOUT ROWID;

  CREATE TABLE phone_data (
    account_id   INTEGER NOT NULL REFERENCES accounts(id),
    phone_number TEXT NOT NULL,
    data         TEXT NOT NULL,
    updated_at   INTEGER NOT NULL,
    PRIMARY KEY (account_id, phone_number)
  ) WITHOUT ROWID;

  CREATE TABLE emails (
    id           INTEGER PRIMARY KEY,
    account_id   INTEGER NOT NULL REFERENCES accounts(id),
    from_address TEXT NOT NULL,
    to_addresses TEXT NOT NULL,
    subject      TEXT NOT NULL,
    status       TEXT NOT NULL,
    message_id   TEXT,
    error        TEXT,
    created_at   INTEGER NOT NULL,
    sent_at      INTEGER
  );
  CREATE INDEX emails_account ON emails(account_id, id);
  `,
  `
  CREATE TABLE social_connections (
    account_id       INTEGER NOT NULL REFERENCES accounts(id),
    alpha_name       TEXT NOT NULL,
    external_id      TEXT NOT NULL UNIQUE,
    token_ciphertext TEXT NOT NULL,
    expires_at       INTEGER,
    updated_at       INTEGER NOT NULL,
    PRIMARY KEY (account_id, alpha_name)
  );

  CREATE TABLE oauth_states (
    state       TEXT PRIMARY KEY,
    account_id  INTEGER NOT NULL REFERENCES accounts(id),
    alpha_name  TEXT NOT NULL,
    external_id TEXT NOT NULL,
    expires_at  INTEGER NOT NULL
  );
  `,
];

/**
 * Organization ids are never reused (appended to the storage's migrations): an `INTEGER PRIMARY KEY`
 * without AUTOINCREMENT gives a new row the highest deleted id, so a client still holding the id of
 * an organization it deleted could delete the next one (PostgreSQL's BIGSERIAL never reuses).
 * SQLite cannot add AUTOINCREMENT to a table: it is rebuilt with the same columns, rows, ids,
 * unique tax id and foreign key. Copying the rows sets its counter to the highest id kept; an id
 * deleted from the top before this migration ran is not known, and may be given once more.
 * The other tables whose rows are deleted either have no integer id the API shows (bot receivers,
 * social connections, OAuth states, client transfers: natural keys) or never had this problem
 * (chat hub operators were created with AUTOINCREMENT); api keys, sender applications, e-mails,
 * accounts and messages are never deleted.
 */
export const ORGANIZATION_IDS_MIGRATION = `
  CREATE TABLE organizations_rebuilt (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    name       TEXT NOT NULL,
    tax_id     TEXT NOT NULL,
    address    TEXT,
    email      TEXT,
    phone      TEXT,
    created_at INTEGER NOT NULL,
    UNIQUE (account_id, tax_id)
  );
  INSERT INTO organizations_rebuilt (id, account_id, name, tax_id, address, email, phone, created_at)
    SELECT id, account_id, name, tax_id, address, email, phone, created_at FROM organizations;
  DROP TABLE organizations;
  ALTER TABLE organizations_rebuilt RENAME TO organizations;
`;

/** The client-management part of the SQLite storage, over the storage's database handle. */
export function createClientStore(db: Database.Database): ClientStorage {
  const insertApplication = db.prepare<[number, string, string, string, string, number], SqliteSenderApplicationRow>(
    `INSERT INTO sender_applications (account_id, kind, name, channels, details, status, created_at)
     VALUES (?, ?, ?, ?, ?, 'pending', ?) RETURNING *`,
  );
  const selectApplication = db.prepare<[number], SqliteSenderApplicationRow>('SELECT * FROM sender_applications WHERE id = ?');
  const selectApplications = db.prepare<
    { accountId: number | null; kind: string | null; status: string | null },
    SqliteSenderApplicationRow
  >(
    `SELECT * FROM sender_applications
     WHERE (@accountId IS NULL OR account_id = @accountId) AND (@kind IS NULL OR kind = @kind) AND (@status IS NULL OR status = @status)
     ORDER BY id DESC`,
  );
  const decide = db.prepare<[string, string | null, number, number], SqliteSenderApplicationRow>(
    `UPDATE sender_applications SET status = ?, reason = ?, decided_at = ? WHERE id = ? AND status = 'pending' RETURNING *`,
  );
  const revokeBots = db.prepare<[string, number, number, string, string | null, string | null], SqliteSenderApplicationRow>(
    `UPDATE sender_applications SET status = 'revoked', reason = ?, decided_at = ?
     WHERE account_id = ? AND name = ? AND status = 'approved'
       AND kind IN ('chatapp_bot', 'messenger_bot') AND (? IS NULL OR kind = ?)
     RETURNING *`,
  );
  const insert = accountInserts(db);
  const selectLink = db.prepare<[number], ClientLinkRow>('SELECT * FROM client_links WHERE child_id = ?');
  const selectLinkByReferral = db.prepare<[number, string], ClientLinkRow>(
    'SELECT * FROM client_links WHERE parent_id = ? AND referral_id = ?',
  );
  const insertOrganization = db.prepare<[number, string, string, string | null, string | null, string | null, number], OrganizationRow>(
    `INSERT INTO organizations (account_id, name, tax_id, address, email, phone, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *`,
  );
  const selectOrganizations = db.prepare<[number, number, number], OrganizationRow>(
    'SELECT * FROM organizations WHERE account_id = ? ORDER BY id LIMIT ? OFFSET ?',
  );
  const countOrganizations = db.prepare<[number], { n: number }>('SELECT COUNT(*) AS n FROM organizations WHERE account_id = ?');
  const deleteOrganization = db.prepare<[number, number]>('DELETE FROM organizations WHERE account_id = ? AND id = ?');
  const selectOrganization = db.prepare<[number, number], OrganizationRow>('SELECT * FROM organizations WHERE account_id = ? AND id = ?');
  const selectMessages = db.prepare<[number, number, number], { id: number; steps: string; created_at: number }>(
    'SELECT id, steps, created_at FROM messages WHERE account_id = ? AND created_at >= ? AND created_at < ? ORDER BY id',
  );
  const selectHistory = db.prepare<[number, number, number], { message_id: number; step: number; status: string }>(
    `SELECT h.message_id, h.step, h.status FROM history h JOIN messages m ON m.id = h.message_id
     WHERE m.account_id = ? AND m.created_at >= ? AND m.created_at < ? ORDER BY h.seq`,
  );
  // Transactions tied to a message with an attempt from the alpha-name; `kinds` is a JSON array or null.
  const ofAlphaName = `FROM wallet_transactions w JOIN messages m ON m.id = w.message_id
     WHERE w.account_id = @accountId
       AND EXISTS (SELECT 1 FROM json_each(m.steps) s WHERE json_extract(s.value, '$.from') = @alphaName)
       AND (@kinds IS NULL OR w.kind IN (SELECT value FROM json_each(@kinds)))`;
  type AlphaParams = { accountId: number; alphaName: string; kinds: string | null };
  const selectWallet = db.prepare<AlphaParams & { limit: number; offset: number }, WalletTransactionRow>(
    `SELECT w.* ${ofAlphaName} ORDER BY w.id DESC LIMIT @limit OFFSET @offset`,
  );
  const countWallet = db.prepare<AlphaParams, { n: number }>(`SELECT COUNT(*) AS n ${ofAlphaName}`);

  const upsertReceiver = db.prepare<[number, string, string, string, number], BotReceiverRow>(
    `INSERT INTO bot_receivers (account_id, bot_name, phone_number, chat_id, updated_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (account_id, bot_name, phone_number) DO UPDATE SET chat_id = excluded.chat_id, updated_at = excluded.updated_at
     RETURNING *`,
  );
  const selectReceiver = db.prepare<[number, string, string], BotReceiverRow>(
    'SELECT * FROM bot_receivers WHERE account_id = ? AND bot_name = ? AND phone_number = ?',
  );
  const deleteReceiver = db.prepare<[number, string, string, string | null, string | null]>(
    'DELETE FROM bot_receivers WHERE account_id = ? AND bot_name = ? AND phone_number = ? AND (? IS NULL OR chat_id = ?)',
  );
  const upsertPhoneData = db.prepare<[number, string, string, number]>(
    `INSERT INTO phone_data (account_id, phone_number, data, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (account_id, phone_number) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at`,
  );
  const putPhoneData = db.transaction((accountId: number, entries: Array<{ phoneNumber: string; data: unknown }>, at: number) => {
    for (const e of entries) upsertPhoneData.run(accountId, e.phoneNumber, JSON.stringify(e.data), at);
  });
  const selectPhoneData = db.prepare<[number, string], { account_id: number; phone_number: string; data: string; updated_at: number }>(
    'SELECT * FROM phone_data WHERE account_id = ? AND phone_number = ?',
  );
  // Read and written in one BEGIN IMMEDIATE transaction: no other writer between the read and the write.
  const mergePhoneData = db.transaction(
    (accountId: number, entries: Array<{ phoneNumber: string; data: Record<string, unknown> }>, at: number, maxChars: number) => {
      const { merged, tooLarge } = mergePhoneEntries(
        entries,
        (phone) => {
          const row = selectPhoneData.get(accountId, phone);
          return row ? (JSON.parse(row.data) as Record<string, unknown>) : null;
        },
        maxChars,
      );
      if (tooLarge.length > 0) return tooLarge;
      for (const [phone, data] of merged) upsertPhoneData.run(accountId, phone, JSON.stringify(data), at);
      return [];
    },
  );
  type RawEmailRow = Omit<EmailRow, 'to_addresses'> & { to_addresses: string };
  const email = (row: RawEmailRow) => emailFromRow({ ...row, to_addresses: JSON.parse(row.to_addresses) });
  const insertEmail = db.prepare<[number, string, string, string, number], RawEmailRow>(
    `INSERT INTO emails (account_id, from_address, to_addresses, subject, status, created_at) VALUES (?, ?, ?, ?, 'pending', ?) RETURNING *`,
  );
  const completeEmail = db.prepare<[string, string | null, string | null, number | null, number], RawEmailRow>(
    'UPDATE emails SET status = ?, message_id = ?, error = ?, sent_at = ? WHERE id = ? RETURNING *',
  );
  const selectEmail = db.prepare<[number, number], RawEmailRow>('SELECT * FROM emails WHERE account_id = ? AND id = ?');

  const insertState = db.prepare<[string, number, string, string, number]>(
    'INSERT INTO oauth_states (state, account_id, alpha_name, external_id, expires_at) VALUES (?, ?, ?, ?, ?)',
  );
  const takeState = db.prepare<[string], OAuthStateRow>('DELETE FROM oauth_states WHERE state = ? RETURNING *');
  const purgeStates = db.prepare<[number]>('DELETE FROM oauth_states WHERE expires_at <= ?');
  // Replacing a connection frees its old external id; an external id of another connection is taken over.
  const upsertConnection = db.transaction((c: SocialConnectionRow) => {
    db.prepare('DELETE FROM social_connections WHERE external_id = ? AND NOT (account_id = ? AND alpha_name = ?)').run(
      c.external_id,
      c.account_id,
      c.alpha_name,
    );
    return db
      .prepare<SocialConnectionRow, SocialConnectionRow>(
        `INSERT INTO social_connections (account_id, alpha_name, external_id, token_ciphertext, expires_at, updated_at)
         VALUES (@account_id, @alpha_name, @external_id, @token_ciphertext, @expires_at, @updated_at)
         ON CONFLICT (account_id, alpha_name) DO UPDATE SET external_id = excluded.external_id,
           token_ciphertext = excluded.token_ciphertext, expires_at = excluded.expires_at, updated_at = excluded.updated_at
         RETURNING *`,
      )
      .get(c)!;
  });
  const selectConnection = db.prepare<[number, string], SocialConnectionRow>(
    'SELECT * FROM social_connections WHERE account_id = ? AND alpha_name = ?',
  );
  const selectConnections = db.prepare<[number], SocialConnectionRow>(
    'SELECT * FROM social_connections WHERE account_id = ? ORDER BY alpha_name',
  );
  const selectConnectionByExternal = db.prepare<[string], SocialConnectionRow>('SELECT * FROM social_connections WHERE external_id = ?');
  const deleteConnection = db.prepare<[number, string]>('DELETE FROM social_connections WHERE account_id = ? AND alpha_name = ?');

  return {
    async createSenderApplication(input, at) {
      const row = conflictOnUnique(
        () =>
          insertApplication.get(input.accountId, input.kind, input.name, JSON.stringify(input.channels), JSON.stringify(input.details), at),
        `'${input.name}' already has a pending application`,
      );
      return toSenderApplication(row!);
    },
    async getSenderApplication(id) {
      const row = selectApplication.get(id);
      return row ? toSenderApplication(row) : null;
    },
    async listSenderApplications(accountId, filter = {}) {
      return selectApplications.all({ accountId, kind: filter.kind ?? null, status: filter.status ?? null }).map(toSenderApplication);
    },
    async decideSenderApplication(id, decision, at) {
      const row = decide.get(decision.status, decision.reason, at, id);
      return row ? toSenderApplication(row) : null;
    },
    revokeAlphaNames: createAlphaNameRevocation(db),
    async revokeBotApplications(accountId, name, reason, at, kind) {
      // RETURNING answers the rows in no set order.
      return revokeBots
        .all(reason, at, accountId, name, kind ?? null, kind ?? null)
        .map(toSenderApplication)
        .sort((x, y) => x.id - y.id);
    },

    createLinkedClient: createLinkedClientCreation(db),
    ...createClientProvisionStore(db),
    async linkClient(link) {
      return insert.link(link);
    },
    ...createClientTransferStore(db),
    async getClientLink(childId) {
      const row = selectLink.get(childId);
      return row ? clientLinkFromRow(row) : null;
    },
    async getClientLinkByReferral(parentId, referralId) {
      const row = selectLinkByReferral.get(parentId, referralId);
      return row ? clientLinkFromRow(row) : null;
    },
    async listClientLinks(parentId, kind) {
      const rows = kind
        ? (db
            .prepare('SELECT * FROM client_links WHERE parent_id = ? AND kind = ? ORDER BY child_id')
            .all(parentId, kind) as ClientLinkRow[])
        : (db.prepare('SELECT * FROM client_links WHERE parent_id = ? ORDER BY child_id').all(parentId) as ClientLinkRow[]);
      return rows.map(clientLinkFromRow);
    },

    async createOrganization(input, at) {
      const row = conflictOnUnique(
        () => insertOrganization.get(input.accountId, input.name, input.taxId, input.address, input.email, input.phone, at),
        `an organization with tax id '${input.taxId}' exists already`,
      );
      return organizationFromRow(row!);
    },
    async listOrganizations(accountId, page) {
      const pageSize = Math.max(1, Math.floor(page.pageSize));
      const offset = (Math.max(1, Math.floor(page.page)) - 1) * pageSize;
      const read = db.transaction(() => ({
        items: selectOrganizations.all(accountId, pageSize, offset).map(organizationFromRow),
        total: countOrganizations.get(accountId)?.n ?? 0,
      }));
      return read();
    },
    async getOrganization(accountId, id) {
      const found = selectOrganization.get(accountId, id);
      return found ? organizationFromRow(found) : null;
    },
    async deleteOrganization(accountId, id) {
      return deleteOrganization.run(accountId, id).changes > 0;
    },

    async listStepActivity(accountId, range) {
      const read = db.transaction(() => {
        const messages = selectMessages
          .all(accountId, range.from, range.to)
          .map((m) => ({ id: m.id, created_at: m.created_at, steps: JSON.parse(m.steps) as StepSpec[] }));
        return stepActivitiesOf(messages, selectHistory.all(accountId, range.from, range.to));
      });
      return read();
    },
    async listWalletTransactionsOfAlphaName(accountId, alphaName, query) {
      const kinds = query.kinds && query.kinds.length > 0 ? JSON.stringify(query.kinds) : null;
      const pageSize = Math.max(1, Math.floor(query.pageSize));
      const offset = (Math.max(1, Math.floor(query.page)) - 1) * pageSize;
      const params = { accountId, alphaName, kinds };
      const read = db.transaction(() => ({
        items: selectWallet.all({ ...params, limit: pageSize, offset }).map(walletTransactionFromRow),
        total: countWallet.get(params)?.n ?? 0,
      }));
      return read();
    },

    async upsertBotReceiver(r, at) {
      return botReceiverFromRow(upsertReceiver.get(r.accountId, r.botName, r.phoneNumber, r.chatId, at)!);
    },
    async getBotReceiver(accountId, botName, phoneNumber) {
      const row = selectReceiver.get(accountId, botName, phoneNumber);
      return row ? botReceiverFromRow(row) : null;
    },
    async deleteBotReceiver(accountId, botName, phoneNumber, chatId) {
      return deleteReceiver.run(accountId, botName, phoneNumber, chatId, chatId).changes > 0;
    },
    async putPhoneData(accountId, entries, at) {
      putPhoneData.immediate(accountId, entries, at);
    },
    async mergePhoneData(accountId, entries, at, maxChars) {
      return mergePhoneData.immediate(accountId, entries, at, maxChars);
    },
    async getPhoneData(accountId, phoneNumber) {
      const row = selectPhoneData.get(accountId, phoneNumber);
      return row ? phoneDataFromRow({ ...row, data: JSON.parse(row.data) }) : null;
    },
    async createEmail(input, at) {
      return email(insertEmail.get(input.accountId, input.from, JSON.stringify(input.to), input.subject, at)!);
    },
    async completeEmail(id, outcome, at) {
      const row = completeEmail.get(outcome.status, outcome.messageId, outcome.error, outcome.status === 'sent' ? at : null, id);
      if (!row) throw new SpillwayError('not_found', `e-mail ${id} does not exist`);
      return email(row);
    },
    async getEmail(accountId, id) {
      const row = selectEmail.get(accountId, id);
      return row ? email(row) : null;
    },

    async createOAuthState(st) {
      insertState.run(st.state, st.accountId, st.alphaName, st.externalId, st.expiresAt);
    },
    async takeOAuthState(state, now) {
      const row = takeState.get(state);
      purgeStates.run(now);
      return row && row.expires_at > now ? oauthStateFromRow(row) : null;
    },
    async upsertSocialConnection(c) {
      return socialConnectionFromRow(
        upsertConnection.immediate({
          account_id: c.accountId,
          alpha_name: c.alphaName,
          external_id: c.externalId,
          token_ciphertext: c.tokenCiphertext,
          expires_at: c.expiresAt,
          updated_at: c.updatedAt,
        }),
      );
    },
    async getSocialConnection(accountId, alphaName) {
      const row = selectConnection.get(accountId, alphaName);
      return row ? socialConnectionFromRow(row) : null;
    },
    async listSocialConnections(accountId) {
      return selectConnections.all(accountId).map(socialConnectionFromRow);
    },
    async findSocialConnection(externalId) {
      const row = selectConnectionByExternal.get(externalId);
      return row ? socialConnectionFromRow(row) : null;
    },
    async deleteSocialConnection(accountId, alphaName) {
      return deleteConnection.run(accountId, alphaName).changes > 0;
    },
  };
}
