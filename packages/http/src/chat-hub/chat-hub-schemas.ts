import { isoTimeSchema } from '@spillway/core/adapter';
import { z } from 'zod';

/** Request bodies and answers of the chat hub API (interface 2.8), shared by its routes and OpenAPI. */
export const credentialsSchema = z.object({ login: z.string().min(1).max(256), password: z.string().min(1).max(1024) });
export const operatorSchema = z.object({ name: z.string().trim().min(1).max(200) });
/** ISO 8601 date-time, read as every time field is; one without an offset is UTC rather than server-local time. */
export const dateTimeSchema = isoTimeSchema({ withoutOffset: 'utc' });
export const operatorTokenSchema = z.object({ id: z.number().int().positive(), expiresAt: dateTimeSchema });
export const tokenSchema = z.object({ token: z.string().min(1).max(4096) });
export const revokeSchema = z.object({ token: z.string().min(1).max(4096).optional() });

export const jwtString = z.string().meta({ description: 'A JWT, as a JSON string' });
export const operatorView = z.object({ id: z.number().int(), name: z.string() });
export const organizationView = z.object({
  id: z.number().int(),
  clientId: z.number().int(),
  login: z.string(),
  name: z.string(),
  currency: z.string(),
  createdAt: z.string().nullable(),
});
export const validateView = z.object({
  isValid: z.boolean(),
  operatorId: z.number().int().nullable(),
  clientId: z.number().int().nullable(),
  expiresAt: z.string().nullable(),
  error: z.string().nullable(),
});
