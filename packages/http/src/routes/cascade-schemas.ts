import {
  CHANNELS,
  DELIVERY_STATUSES,
  MAX_CASCADE_MESSAGES,
  cascadeItemSchema,
  routeSchema,
  variableUploadSchema,
  broadcastSchema,
} from '@spillway/core';
import { z } from 'zod';

// Schemas of the cascade API for the OpenAPI document; the engine validates bodies itself.

/** `route` of a cascade message (a Spillway extension), as the core schema describes it. */
const route = cascadeItemSchema.shape.route;

/** Either shape of interface 4.2: the array of cascade messages, or the overview object. */
export const cascadeRequestSchema = z.union([
  z.array(cascadeItemSchema).min(1).max(MAX_CASCADE_MESSAGES),
  z.object({
    fromName: z.string().nullish(),
    messageType: z.string().nullish(),
    ttl: z.int().nullish(),
    sheduledSent: z.string().nullish(),
    route,
    messages: z.array(
      z.looseObject({
        recipient: z.string(),
        text: z.string().optional(),
        variables: z.array(z.object({ id: z.union([z.int(), z.string()]), value: z.string() })).optional(),
      }),
    ),
  }),
]);

const accepted = z.object({ messageId: z.uuid(), trackinId: z.string() });

/** The cascade response (interface 2.7). */
export const cascadeResponseSchema = z.array(accepted);

const historyStatus = z.enum(['Sent', 'Delivered', 'Read', 'Failed', 'Expired', 'Skipped', 'Superseded', 'Cancelled', 'Clicked']);
const channel = z.enum(CHANNELS);

/** The cascade status record (DESIGN.md: status_guid, status_id). */
export const cascadeStatusSchema = z.object({
  messageId: z.uuid(),
  trackinId: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  channel: channel.nullable().meta({ description: 'The channel that delivered, else the one tried last' }),
  route: z.string().nullable().meta({ description: 'id@revision of the route' }),
  messageType: z.string().nullable(),
  toPhone: z.string(),
  fromName: z.string(),
  createdAt: z.iso.datetime(),
  sheduledSent: z.iso.datetime(),
  expiresAt: z.iso.datetime().nullable(),
  referralGuid: z.string().nullable(),
  customerData: z.record(z.string(), z.unknown()).nullable(),
  cost: z.number(),
  currency: z.string(),
  steps: z.array(
    z.object({
      step: z.int(),
      id: z.string(),
      channel,
      status: z
        .enum([...DELIVERY_STATUSES, 'skipped', 'expired', 'superseded'])
        .nullable()
        .meta({
          description:
            'null: never reached; skipped: never sent; expired: no delivery report within its ttl or timeout; ' +
            'superseded: a late delivery of an earlier step ended the cascade during it',
        }),
      dt: z.iso.datetime().nullable(),
      error: z.string().nullable(),
      cost: z.number(),
      driver: z
        .string()
        .nullable()
        .meta({ description: 'The driver that carried the step (with a failover, the provider); null if never sent' }),
    }),
  ),
  history: z.array(
    z.object({
      step: z.int(),
      channel,
      status: historyStatus,
      dt: z.iso.datetime(),
      error: z.string().nullable(),
      driver: z.string().nullable().meta({ description: 'The driver that carried the attempt or reported the outcome' }),
    }),
  ),
});

/** BroadcastCreateDTO and its answer; `route` is named for the document (the template is loose). */
export const broadcastRequestSchema = broadcastSchema.extend({ route });
export const broadcastResponseSchema = z.object({
  count: z.int(),
  messages: z.array(accepted.extend({ toPhone: z.string() })),
});

/** A route as the API shows it. */
export const routeViewSchema = routeSchema.extend({
  id: z.string(),
  revision: z.int(),
  builtin: z.boolean(),
  createdAt: z.iso.datetime().nullable(),
  updatedAt: z.iso.datetime().nullable(),
});
export const routeBodySchema = routeSchema.omit({ id: true });
export const bindingSchema = z.object({ alphaName: z.string().nullable(), routeId: z.string() });
export const bindingRequestSchema = z.object({
  alphaName: z.string().min(1).max(64).nullable().optional().meta({ description: 'null or absent: the account default' }),
});

export const variableUploadRequestSchema = variableUploadSchema;
export const variableUploadResponseSchema = z.object({ stored: z.int() });
