import { CHANNELS } from '@spillway/core';
import { z } from 'zod';

// Answers of the client-management API (interface 4.3), for the OpenAPI document.

const channels = z.array(z.enum(CHANNELS));
const status = z.enum(['pending', 'approved', 'rejected', 'revoked']);

/** A sender application as answered. */
export const applicationSchema = z.object({
  id: z.int(),
  kind: z.enum(['alpha_name', 'chatapp_bot', 'messenger_bot']),
  name: z.string().meta({ description: 'The alpha-name or the bot name' }),
  channels,
  status,
  reason: z.string().nullable().meta({ description: 'Why it was rejected or revoked' }),
  details: z.record(z.string(), z.unknown()).meta({ description: 'What the applicant told (company, purpose, sample text...)' }),
  createdAt: z.iso.datetime(),
  decidedAt: z.iso.datetime().nullable().meta({ description: 'When it was last decided: approved, rejected or revoked' }),
});

/** SMS figures of one alpha-name over the period. */
export const alphaNameStatisticsSchema = z.object({
  alphaName: z.string(),
  sent: z.int(),
  delivered: z.int(),
  undeliverable: z.int(),
  parts: z.int(),
  cost: z.number().meta({ description: 'Price of the sent attempts, currency units' }),
  currency: z.string(),
});

/** `GET /api/AlphaName/sms/status`. */
export const alphaNameStatusSchema = z.object({
  dateFrom: z.iso.datetime(),
  dateTo: z.iso.datetime(),
  applications: z.array(applicationSchema),
  statistics: z.array(alphaNameStatisticsSchema),
});

/** One sender of `GET /api/clientsenders`. */
export const senderStateSchema = z.object({
  name: z.string(),
  kind: z.enum(['alpha_name', 'chatapp_bot', 'messenger_bot']),
  channels,
  status,
  reason: z.string().nullable(),
  applicationId: z.int().nullable().meta({ description: 'Null for a name approved without application (configuration, CLI)' }),
});

/** `GET /api/clientsenders` (ClientSenderResp). */
export const clientSendersSchema = z.object({
  alphaNames: z.array(senderStateSchema),
  bots: z.array(senderStateSchema),
});

/** A client account linked to the caller. */
export const clientSchema = z.object({
  clientId: z.int(),
  login: z.string(),
  name: z.string(),
  currency: z.string(),
  kind: z.enum(['sub', 'referral']),
  referralId: z.uuid().nullable(),
  balance: z.number(),
  createdAt: z.iso.datetime(),
});

/** `POST /api/client/provision`. */
export const provisionedClientSchema = z.object({
  clientId: z.int(),
  login: z.string(),
  name: z.string(),
  currency: z.string(),
  apiKey: z
    .string()
    .nullable()
    .meta({
      description:
        'The sub-client’s API key, shown once: null in a replayed answer (same `Idempotency-Key`), for it is never kept. ' +
        'Issue a new one with `POST /api/client/clients/{clientId}/keys`',
    }),
  keyId: z
    .int()
    .nullable()
    .meta({ description: 'The id of that key, to revoke it (`DELETE /api/client/clients/{clientId}/keys/{keyId}`)' }),
  balance: z.number().meta({ description: 'Opening balance moved from the parent, currency units' }),
  alphaNames: z.array(z.object({ alphaName: z.string(), channels })),
  parentId: z.int(),
  message: z.string().optional().meta({ description: 'In a replayed answer only: why `apiKey` is null and how to get a new key' }),
});

/** An API key of a sub-client, without the key (`GET /api/client/clients/{clientId}/keys`). */
export const clientKeySchema = z.object({
  keyId: z.int(),
  label: z.string(),
  prefix: z.string().meta({ description: 'First characters of the key, to recognise it' }),
  createdAt: z.iso.datetime(),
});

/** `POST /api/client/clients/{clientId}/keys`: the new key, shown once. */
export const issuedClientKeySchema = z.object({
  clientId: z.int(),
  keyId: z.int(),
  apiKey: z.string().meta({ description: 'The new API key, shown once: it is never kept in clear' }),
  label: z.string(),
  prefix: z.string(),
  createdAt: z.iso.datetime(),
});

/** `POST /api/client/clients/{clientId}/transfer`. */
export const clientTransferResultSchema = z.object({
  clientId: z.int(),
  direction: z.enum(['to_client', 'from_client']),
  amount: z.number().meta({ description: 'Moved, currency units' }),
  currency: z.string(),
  balance: z.number().meta({ description: 'The caller’s balance after the move' }),
  clientBalance: z.number().meta({ description: 'The sub-client’s balance after the move' }),
});

/** An alpha-name of an account as the operator lists it. */
export const accountAlphaNameSchema = z.object({ alphaName: z.string(), channels, callbackUrl: z.string().nullable() });

/** The operator's revocation of an alpha-name, or its withdrawal from some channels. */
export const alphaNameRevocationResultSchema = z.object({
  alphaName: z.string(),
  reason: z.string(),
  revokedAt: z.iso.datetime(),
  accounts: z
    .array(
      z.object({
        accountId: z.int(),
        channels: channels.meta({ description: 'The channels withdrawn from the name of this account' }),
        channelsLeft: channels.meta({
          description: 'The channels the name keeps on this account; empty when it is revoked entirely',
        }),
      }),
    )
    .meta({
      description:
        'The accounts that lost the name, or some of its channels: the account, then the sub-clients it was shared with ' +
        '(those whose name had none of the channels withdrawn are not listed)',
    }),
  applicationIds: z
    .array(z.int())
    .meta({ description: 'The approved applications of the name now `revoked`: all of them, or those none of whose channels is left' }),
});

/** An organization (OrganizationDataDTO). */
export const organizationSchema = z.object({
  id: z.int(),
  name: z.string(),
  taxId: z.string(),
  address: z.string().nullable(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  createdAt: z.iso.datetime(),
});

/** Item of `GET /organizations` (OrganizationNameSync). */
export const organizationNameSchema = z.object({ id: z.int(), name: z.string(), taxId: z.string() });

/** Answer of `POST /admin/accounts/{accountId}/bots/revoke`. */
export const botRevocationResultSchema = z.object({
  botName: z.string(),
  reason: z.string(),
  revokedAt: z.iso.datetime(),
  applications: z
    .array(applicationSchema)
    .meta({ description: 'The approved applications of the bot now `revoked`, by id: one, or one of each kind without `kind`' }),
});
