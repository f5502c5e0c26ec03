import type pg from 'pg';
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
  senderApplicationFromRow,
  stepActivitiesOf,
  walletTransactionFromRow,
} from '@spillway/core/storage';
import type { ClientStorage, StepSpec } from '@spillway/core';
import type {
  BotReceiverRow,
  ClientLinkRow,
  EmailRow,
  OAuthStateRow,
  SocialConnectionRow,
  OrganizationRow,
  PhoneDataRow,
  SenderApplicationRow,
  WalletTransactionRow,
} from '@spillway/core/storage';
import { accountInserts } from './account-inserts.ts';
import { createAlphaNameRevocation } from './alpha-name-revocation.ts';
import { createClientProvisionStore } from './client-provision-store.ts';
import { createClientTransferStore } from './client-transfer-store.ts';
import { createLinkedClientCreation } from './linked-client-creation.ts';
import { conflictOnUnique, row, rows, run, transaction } from './pg-util.ts';

/** Thrown out of a merge's transaction to roll it back: the entries whose merged data is too large. */
class TooLarge extends Error {
  constructor(readonly indexes: number[]) {
    super('per-phone data too large');
  }
}

/**
 * Migrations of the client-management tables, appended to the storage's migrations in order.
 * Append new versions, never edit an applied one.
 */
export const CLIENT_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE sender_applications (
    id         BIGSERIAL PRIMARY KEY,
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    kind       TEXT NOT NULL,
    name       TEXT NOT NULL,
    channels   JSONB NOT NULL,
    details    JSONB NOT NULL,
    status     TEXT NOT NULL,
    reason     TEXT,
    created_at BIGINT NOT NULL,
    decided_at BIGINT
  );
  -- At most one live (pending or approved) application per sender; rejected ones may be retried.
  CREATE UNIQUE INDEX sender_applications_live ON sender_applications(account_id, kind, name)
    WHERE status IN ('pending', 'approved');
  CREATE INDEX sender_applications_status ON sender_applications(status, id);

  CREATE TABLE client_links (
    child_id    BIGINT PRIMARY KEY REFERENCES accounts(id),
    parent_id   BIGINT NOT NULL REFERENCES accounts(id),
    kind        TEXT NOT NULL,
    referral_id TEXT,
    created_at  BIGINT NOT NULL
  );
  CREATE INDEX client_links_parent ON client_links(parent_id, child_id);
  CREATE UNIQUE INDEX client_links_referral ON client_links(parent_id, referral_id) WHERE referral_id IS NOT NULL;

  CREATE TABLE organizations (
    id         BIGSERIAL PRIMARY KEY,
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    name       TEXT NOT NULL,
    tax_id     TEXT NOT NULL,
    address    TEXT,
    email      TEXT,
    phone      TEXT,
    created_at BIGINT NOT NULL,
    UNIQUE (account_id, tax_id)
  );

  CREATE INDEX messages_account_created ON messages(account_id, created_at);
  `,
  `
  CREATE TABLE bot_receivers (
    account_id   BIGINT NOT NULL REFERENCES accounts(id),
    bot_name     TEXT NOT NULL,
    phone_number TEXT NOT NULL,
    chat_id      TEXT NOT NULL,
    updated_at   BIGINT NOT NULL,
    PRIMARY KEY (account_id, bot_name, phone_number)
  );

  CREATE TABLE phone_data (
    account_id   BIGINT NOT NULL REFERENCES accounts(id),
    phone_number TEXT NOT NULL,
    data         JSONB NOT NULL,
    updated_at   BIGINT NOT NULL,
    PRIMARY KEY (account_id, phone_number)
  );

  CREATE TABLE emails (
    id           BIGSERIAL PRIMARY KEY,
    account_id   BIGINT NOT NULL REFERENCES accounts(id),
    from_address TEXT NOT NULL,
    to_addresses JSONB NOT NULL,
    subject      TEXT NOT NULL,
    status       TEXT NOT NULL,
    message_id   TEXT,
    error        TEXT,
    created_at   BIGINT NOT NULL,
    sent_at      BIGINT
  );
  CREATE INDEX emails_account ON emails(account_id, id);
  `,
  `
  CREATE TABLE social_connections (
    account_id       BIGINT NOT NULL REFERENCES accounts(id),
    alpha_name       TEXT NOT NULL,
    external_id      TEXT NOT NULL UNIQUE,
    token_ciphertext TEXT NOT NULL,
    expires_at       BIGINT,
    updated_at       BIGINT NOT NULL,
    PRIMARY KEY (account_id, alpha_name)
  );

  CREATE TABLE oauth_states (
    state       TEXT PRIMARY KEY,
    account_id  BIGINT NOT NULL REFERENCES accounts(id),
    alpha_name  TEXT NOT NULL,
    external_id TEXT NOT NULL,
    expires_at  BIGINT NOT NULL
  );
  `,
];

/** The client-management part of the PostgreSQL storage, in the tables of `x` (the schema prefix). */
export function createClientStore(pool: pg.Pool, x: string): ClientStorage {
  const insert = accountInserts(pool, x);
  return {
    async createSenderApplication(input, at) {
      const created = await conflictOnUnique(
        () =>
          row<SenderApplicationRow>(
            pool,
            `INSERT INTO ${x}sender_applications (account_id, kind, name, channels, details, status, created_at)
             VALUES ($1, $2, $3, $4, $5, 'pending', $6) RETURNING *`,
            [input.accountId, input.kind, input.name, JSON.stringify(input.channels), JSON.stringify(input.details), at],
          ),
        `'${input.name}' already has a pending application`,
      );
      return senderApplicationFromRow(created!);
    },
    async getSenderApplication(id) {
      const found = await row<SenderApplicationRow>(pool, `SELECT * FROM ${x}sender_applications WHERE id = $1`, [id]);
      return found ? senderApplicationFromRow(found) : null;
    },
    async listSenderApplications(accountId, filter = {}) {
      const found = await rows<SenderApplicationRow>(
        pool,
        `SELECT * FROM ${x}sender_applications
         WHERE ($1::bigint IS NULL OR account_id = $1) AND ($2::text IS NULL OR kind = $2) AND ($3::text IS NULL OR status = $3)
         ORDER BY id DESC`,
        [accountId, filter.kind ?? null, filter.status ?? null],
      );
      return found.map(senderApplicationFromRow);
    },
    async decideSenderApplication(id, decision, at) {
      const updated = await row<SenderApplicationRow>(
        pool,
        `UPDATE ${x}sender_applications SET status = $1, reason = $2, decided_at = $3 WHERE id = $4 AND status = 'pending' RETURNING *`,
        [decision.status, decision.reason, at, id],
      );
      return updated ? senderApplicationFromRow(updated) : null;
    },
    revokeAlphaNames: createAlphaNameRevocation(pool, x),
    async revokeBotApplications(accountId, name, reason, at, kind) {
      const revoked = await rows<SenderApplicationRow>(
        pool,
        `UPDATE ${x}sender_applications SET status = 'revoked', reason = $3, decided_at = $4
         WHERE account_id = $1 AND name = $2 AND status = 'approved'
           AND kind IN ('chatapp_bot', 'messenger_bot') AND ($5::text IS NULL OR kind = $5)
         RETURNING *`,
        [accountId, name, reason, at, kind ?? null],
      );
      // RETURNING answers the rows in no set order.
      return revoked.map(senderApplicationFromRow).sort((x, y) => x.id - y.id);
    },

    createLinkedClient: createLinkedClientCreation(pool, x),
    ...createClientProvisionStore(pool, x),
    async linkClient(link) {
      return insert.link(link);
    },
    ...createClientTransferStore(pool, x),
    async getClientLink(childId) {
      const found = await row<ClientLinkRow>(pool, `SELECT * FROM ${x}client_links WHERE child_id = $1`, [childId]);
      return found ? clientLinkFromRow(found) : null;
    },
    async getClientLinkByReferral(parentId, referralId) {
      const found = await row<ClientLinkRow>(pool, `SELECT * FROM ${x}client_links WHERE parent_id = $1 AND referral_id = $2`, [
        parentId,
        referralId,
      ]);
      return found ? clientLinkFromRow(found) : null;
    },
    async listClientLinks(parentId, kind) {
      const found = await rows<ClientLinkRow>(
        pool,
        `SELECT * FROM ${x}client_links WHERE parent_id = $1 AND ($2::text IS NULL OR kind = $2) ORDER BY child_id`,
        [parentId, kind ?? null],
      );
      return found.map(clientLinkFromRow);
    },

    async createOrganization(input, at) {
      const created = await conflictOnUnique(
        () =>
          row<OrganizationRow>(
            pool,
            `INSERT INTO ${x}organizations (account_id, name, tax_id, address, email, phone, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
            [input.accountId, input.name, input.taxId, input.address, input.email, input.phone, at],
          ),
        `an organization with tax id '${input.taxId}' exists already`,
      );
      return organizationFromRow(created!);
    },
    async listOrganizations(accountId, page) {
      const pageSize = Math.max(1, Math.floor(page.pageSize));
      const offset = (Math.max(1, Math.floor(page.page)) - 1) * pageSize;
      return transaction(
        pool,
        async (client) => ({
          items: (
            await rows<OrganizationRow>(client, `SELECT * FROM ${x}organizations WHERE account_id = $1 ORDER BY id LIMIT $2 OFFSET $3`, [
              accountId,
              pageSize,
              offset,
            ])
          ).map(organizationFromRow),
          total: (await row<{ n: number }>(client, `SELECT COUNT(*)::int AS n FROM ${x}organizations WHERE account_id = $1`, [accountId]))!
            .n,
        }),
        'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
      );
    },
    async getOrganization(accountId, id) {
      const found = await row<OrganizationRow>(pool, `SELECT * FROM ${x}organizations WHERE account_id = $1 AND id = $2`, [accountId, id]);
      return found ? organizationFromRow(found) : null;
    },
    async deleteOrganization(accountId, id) {
      return (await run(pool, `DELETE FROM ${x}organizations WHERE account_id = $1 AND id = $2`, [accountId, id])) > 0;
    },

    async listStepActivity(accountId, range) {
      return transaction(
        pool,
        async (client) => {
          const messages = await rows<{ id: number; steps: StepSpec[]; created_at: number }>(
            client,
            `SELECT id, steps, created_at FROM ${x}messages WHERE account_id = $1 AND created_at >= $2 AND created_at < $3 ORDER BY id`,
            [accountId, range.from, range.to],
          );
          const history = await rows<{ message_id: number; step: number; status: string }>(
            client,
            `SELECT h.message_id, h.step, h.status FROM ${x}history h JOIN ${x}messages m ON m.id = h.message_id
             WHERE m.account_id = $1 AND m.created_at >= $2 AND m.created_at < $3 ORDER BY h.seq`,
            [accountId, range.from, range.to],
          );
          return stepActivitiesOf(messages, history);
        },
        'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
      );
    },
    async listWalletTransactionsOfAlphaName(accountId, alphaName, query) {
      const kinds = query.kinds && query.kinds.length > 0 ? query.kinds : null;
      const pageSize = Math.max(1, Math.floor(query.pageSize));
      const offset = (Math.max(1, Math.floor(query.page)) - 1) * pageSize;
      // Transactions tied to a message with an attempt from the alpha-name.
      const from = `FROM ${x}wallet_transactions w JOIN ${x}messages m ON m.id = w.message_id
        WHERE w.account_id = $1 AND m.steps::jsonb @> jsonb_build_array(jsonb_build_object('from', $2::text))
          AND ($3::text[] IS NULL OR w.kind = ANY($3::text[]))`;
      return transaction(
        pool,
        async (client) => ({
          items: (
            await rows<WalletTransactionRow>(client, `SELECT w.* ${from} ORDER BY w.id DESC LIMIT $4 OFFSET $5`, [
              accountId,
              alphaName,
              kinds,
              pageSize,
              offset,
            ])
          ).map(walletTransactionFromRow),
          total: (await row<{ n: number }>(client, `SELECT COUNT(*)::int AS n ${from}`, [accountId, alphaName, kinds]))!.n,
        }),
        'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
      );
    },

    async upsertBotReceiver(r, at) {
      const saved = await row<BotReceiverRow>(
        pool,
        `INSERT INTO ${x}bot_receivers (account_id, bot_name, phone_number, chat_id, updated_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (account_id, bot_name, phone_number) DO UPDATE SET chat_id = EXCLUDED.chat_id, updated_at = EXCLUDED.updated_at
         RETURNING *`,
        [r.accountId, r.botName, r.phoneNumber, r.chatId, at],
      );
      return botReceiverFromRow(saved!);
    },
    async getBotReceiver(accountId, botName, phoneNumber) {
      const found = await row<BotReceiverRow>(
        pool,
        `SELECT * FROM ${x}bot_receivers WHERE account_id = $1 AND bot_name = $2 AND phone_number = $3`,
        [accountId, botName, phoneNumber],
      );
      return found ? botReceiverFromRow(found) : null;
    },
    async deleteBotReceiver(accountId, botName, phoneNumber, chatId) {
      const removed = await run(
        pool,
        `DELETE FROM ${x}bot_receivers WHERE account_id = $1 AND bot_name = $2 AND phone_number = $3 AND ($4::text IS NULL OR chat_id = $4)`,
        [accountId, botName, phoneNumber, chatId],
      );
      return removed > 0;
    },
    async putPhoneData(accountId, entries, at) {
      if (entries.length === 0) return;
      // One statement for the whole batch; a number given twice keeps its last data.
      const last = new Map(entries.map((e) => [e.phoneNumber, e.data]));
      await run(
        pool,
        `INSERT INTO ${x}phone_data (account_id, phone_number, data, updated_at)
         SELECT $1, p, d, $4 FROM unnest($2::text[], $3::jsonb[]) AS t(p, d)
         ON CONFLICT (account_id, phone_number) DO UPDATE SET data = EXCLUDED.data, updated_at = EXCLUDED.updated_at`,
        [accountId, [...last.keys()], [...last.values()].map((d) => JSON.stringify(d)), at],
      );
    },
    async mergePhoneData(accountId, entries, at, maxChars) {
      if (entries.length === 0) return [];
      // In order, so that two merges of overlapping numbers lock them in the same order (no deadlock).
      const phones = [...new Set(entries.map((e) => e.phoneNumber))].sort();
      return transaction(pool, async (client) => {
        // Every number gets its row first, so that the next statement locks all of them: a number
        // new to two merges at once is then merged by both, one after the other.
        await run(
          client,
          `INSERT INTO ${x}phone_data (account_id, phone_number, data, updated_at)
           SELECT $1, p, '{}'::jsonb, $3 FROM unnest($2::text[]) AS t(p)
           ON CONFLICT (account_id, phone_number) DO NOTHING`,
          [accountId, phones, at],
        );
        const current = await rows<{ phone_number: string; data: Record<string, unknown> }>(
          client,
          `SELECT phone_number, data FROM ${x}phone_data WHERE account_id = $1 AND phone_number = ANY($2::text[])
           ORDER BY phone_number FOR UPDATE`,
          [accountId, phones],
        );
        const stored = new Map(current.map((r) => [r.phone_number, r.data]));
        const { merged, tooLarge } = mergePhoneEntries(entries, (phone) => stored.get(phone) ?? null, maxChars);
        // Rolled back, with the rows made above.
        if (tooLarge.length > 0) throw new TooLarge(tooLarge);
        await run(
          client,
          `UPDATE ${x}phone_data AS pd SET data = t.d, updated_at = $4
           FROM unnest($2::text[], $3::jsonb[]) AS t(p, d) WHERE pd.account_id = $1 AND pd.phone_number = t.p`,
          [accountId, [...merged.keys()], [...merged.values()].map((d) => JSON.stringify(d)), at],
        );
        return [];
      }).catch((error: unknown) => {
        if (error instanceof TooLarge) return error.indexes;
        throw error;
      });
    },
    async getPhoneData(accountId, phoneNumber) {
      const found = await row<PhoneDataRow>(pool, `SELECT * FROM ${x}phone_data WHERE account_id = $1 AND phone_number = $2`, [
        accountId,
        phoneNumber,
      ]);
      return found ? phoneDataFromRow(found) : null;
    },
    async createEmail(input, at) {
      const created = await row<EmailRow>(
        pool,
        `INSERT INTO ${x}emails (account_id, from_address, to_addresses, subject, status, created_at)
         VALUES ($1, $2, $3, $4, 'pending', $5) RETURNING *`,
        [input.accountId, input.from, JSON.stringify(input.to), input.subject, at],
      );
      return emailFromRow(created!);
    },
    async completeEmail(id, outcome, at) {
      const updated = await row<EmailRow>(
        pool,
        `UPDATE ${x}emails SET status = $1, message_id = $2, error = $3, sent_at = $4 WHERE id = $5 RETURNING *`,
        [outcome.status, outcome.messageId, outcome.error, outcome.status === 'sent' ? at : null, id],
      );
      if (!updated) throw new SpillwayError('not_found', `e-mail ${id} does not exist`);
      return emailFromRow(updated);
    },
    async getEmail(accountId, id) {
      const found = await row<EmailRow>(pool, `SELECT * FROM ${x}emails WHERE account_id = $1 AND id = $2`, [accountId, id]);
      return found ? emailFromRow(found) : null;
    },

    async createOAuthState(st) {
      await run(pool, `INSERT INTO ${x}oauth_states (state, account_id, alpha_name, external_id, expires_at) VALUES ($1, $2, $3, $4, $5)`, [
        st.state,
        st.accountId,
        st.alphaName,
        st.externalId,
        st.expiresAt,
      ]);
    },
    async takeOAuthState(state, now) {
      const taken = await row<OAuthStateRow>(pool, `DELETE FROM ${x}oauth_states WHERE state = $1 RETURNING *`, [state]);
      await run(pool, `DELETE FROM ${x}oauth_states WHERE expires_at <= $1`, [now]);
      return taken && taken.expires_at > now ? oauthStateFromRow(taken) : null;
    },
    async upsertSocialConnection(c) {
      return transaction(pool, async (client) => {
        // Replacing a connection frees its old external id; an external id of another connection is taken over.
        await run(client, `DELETE FROM ${x}social_connections WHERE external_id = $1 AND NOT (account_id = $2 AND alpha_name = $3)`, [
          c.externalId,
          c.accountId,
          c.alphaName,
        ]);
        const saved = await row<SocialConnectionRow>(
          client,
          `INSERT INTO ${x}social_connections (account_id, alpha_name, external_id, token_ciphertext, expires_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (account_id, alpha_name) DO UPDATE SET external_id = EXCLUDED.external_id,
             token_ciphertext = EXCLUDED.token_ciphertext, expires_at = EXCLUDED.expires_at, updated_at = EXCLUDED.updated_at
           RETURNING *`,
          [c.accountId, c.alphaName, c.externalId, c.tokenCiphertext, c.expiresAt, c.updatedAt],
        );
        return socialConnectionFromRow(saved!);
      });
    },
    async getSocialConnection(accountId, alphaName) {
      const found = await row<SocialConnectionRow>(pool, `SELECT * FROM ${x}social_connections WHERE account_id = $1 AND alpha_name = $2`, [
        accountId,
        alphaName,
      ]);
      return found ? socialConnectionFromRow(found) : null;
    },
    async listSocialConnections(accountId) {
      const found = await rows<SocialConnectionRow>(
        pool,
        `SELECT * FROM ${x}social_connections WHERE account_id = $1 ORDER BY alpha_name`,
        [accountId],
      );
      return found.map(socialConnectionFromRow);
    },
    async findSocialConnection(externalId) {
      const found = await row<SocialConnectionRow>(pool, `SELECT * FROM ${x}social_connections WHERE external_id = $1`, [externalId]);
      return found ? socialConnectionFromRow(found) : null;
    },
    async deleteSocialConnection(accountId, alphaName) {
      return (await run(pool, `DELETE FROM ${x}social_connections WHERE account_id = $1 AND alpha_name = $2`, [accountId, alphaName])) > 0;
    },
  };
}
