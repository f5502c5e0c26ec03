import { SpillwayError } from '@spillway/core';
import type { FailureClass, Receipt, ReceiptFrom } from '@spillway/core';
import { rethrowAt, withoutNul } from '@spillway/core/adapter';
import type { Hono } from 'hono';
import { Webhook } from 'standardwebhooks';
import { z } from 'zod';
import type { Env } from '../env.ts';
import { defineRoute } from '../openapi.ts';
import { isJsonContentType } from '../read-json.ts';
import { parseOrThrow } from '../validate.ts';

/** Statuses an upstream gateway reports, and the outcome each means. */
const OUTCOMES = {
  delivered: { outcome: 'delivered' },
  read: { outcome: 'read' },
  undeliverable: { outcome: 'failed', failure: 'undeliverable' },
  expired: { outcome: 'failed', failure: 'undeliverable' },
  rejected: { outcome: 'failed', failure: 'permanent' },
} as const satisfies Record<string, { outcome: Receipt['outcome']; failure?: FailureClass }>;

const gatewayReceiptSchema = z
  .object({
    messageId: z.int().positive().optional().meta({ description: 'Spillway message id (with `step`)' }),
    step: z.int().min(0).max(31).optional().meta({ description: 'Attempt of the message: 0 the first, 1 its first fallback...' }),
    providerMessageId: z.string().min(1).max(128).optional().meta({ description: "The gateway's own id of the attempt (with `driver`)" }),
    driver: z.string().min(1).max(64).optional().meta({ description: 'The driver that sent the attempt and recorded the provider id' }),
    status: z.enum(Object.keys(OUTCOMES) as [keyof typeof OUTCOMES, ...(keyof typeof OUTCOMES)[]]),
    failure: z
      .enum(['throttled', 'temporary', 'not_on_channel', 'undeliverable', 'permanent'])
      .optional()
      .meta({ description: 'Overrides the failure class a failed status implies' }),
    error: z.string().max(500).optional(),
  })
  .strict()
  .refine((r) => (r.messageId !== undefined && r.step !== undefined) !== (r.providerMessageId !== undefined && r.driver !== undefined), {
    message: 'name the attempt either by messageId and step, or by providerMessageId and driver',
  });

const gatewayCallbackSchema = z.object({ receipts: z.array(gatewayReceiptSchema).min(1).max(1000) }).strict();

const gatewayAnswerSchema = z.object({ accepted: z.int().meta({ description: 'Receipts stored; each is applied to its message' }) });

export interface GatewayCallbackDeps {
  /** The Standard Webhooks secret (`whsec_...`) the gateway signs with; without one the route answers 404. */
  secret?: string | undefined;
}

/**
 * Registers `POST /gateway-callback`: delivery receipts from an upstream gateway, signed the
 * Standard Webhooks way. Every receipt is stored in the engine's durable inbox before the 200,
 * so a crash after the answer loses none; the workers then apply them exactly as a driver's.
 */
export function registerGatewayCallback(app: Hono<Env>, deps: GatewayCallbackDeps = {}): void {
  const verifier = deps.secret ? new Webhook(deps.secret) : null;
  defineRoute(
    app,
    {
      method: 'post',
      path: '/gateway-callback',
      operationId: 'receiveGatewayCallback',
      summary: 'Delivery receipts from an upstream gateway',
      description:
        'Signed with the server-wide gateway secret (`SPILLWAY_GATEWAY_SECRET`, `whsec_...`) the Standard Webhooks way: headers ' +
        '`webhook-id`, `webhook-timestamp` (within 5 minutes) and `webhook-signature`. Each receipt names its attempt by ' +
        '`messageId` and `step`, or by the `providerMessageId` the gateway answered and the `driver` that sent it. Statuses: ' +
        '`delivered`, `read`, `undeliverable` and `expired` (undeliverable), `rejected` (permanent error). The receipts are ' +
        'stored before the answer and applied to their messages by the workers; a receipt for a step the message has left is ignored. ' +
        'A receipt naming a message that does not exist, or a step it does not have, is a 400 (`validation_failed`, at its path) and none of the request is stored.',
      tags: ['client'],
      auth: 'none',
      body: gatewayCallbackSchema,
      responses: {
        200: { description: 'Stored', schema: gatewayAnswerSchema },
        401: { description: 'Missing or wrong signature' },
        404: { description: 'No gateway secret is configured' },
      },
    },
    async (c) => {
      if (!verifier) throw new SpillwayError('not_found', 'the gateway callback is not configured (set SPILLWAY_GATEWAY_SECRET)');
      const body = await c.req.text();
      try {
        verifier.verify(body, {
          'webhook-id': c.req.header('webhook-id') ?? '',
          'webhook-timestamp': c.req.header('webhook-timestamp') ?? '',
          'webhook-signature': c.req.header('webhook-signature') ?? '',
        });
      } catch {
        throw new SpillwayError('unauthorized', 'missing or invalid webhook signature');
      }
      if (!isJsonContentType(c.req.header('content-type')))
        throw new SpillwayError('unsupported_media_type', 'Content-Type must be application/json');
      let json: unknown;
      try {
        // A gateway's text keeps U+FFFD for U+0000, as the drivers' callbacks do: refused, the
        // receipts would be retried by the gateway forever and never stored.
        json = withoutNul(JSON.parse(body));
      } catch (error) {
        throw new SpillwayError('bad_request', `Malformed JSON: ${(error as Error).message}`);
      }
      const { receipts } = parseOrThrow(gatewayCallbackSchema, json, 'gateway callback');
      const reports = receipts.map((r): ReceiptFrom => {
        const outcome = OUTCOMES[r.status];
        const report = {
          outcome: outcome.outcome,
          ...('failure' in outcome || r.failure
            ? { failure: r.failure ?? ('failure' in outcome ? outcome.failure : 'undeliverable') }
            : {}),
          ...(r.error ? { error: r.error } : {}),
        };
        return r.messageId !== undefined
          ? { receipt: { messageId: r.messageId, step: r.step!, ...report } }
          : { receipt: { providerMessageId: r.providerMessageId!, ...report }, driver: r.driver! };
      });
      // All or none: a receipt naming an attempt that does not exist refuses the request.
      await c.var.engine.receiveMany(reports).catch((error: unknown) => rethrowAt(error, (path) => `receipts${path}`));
      return c.json({ accepted: receipts.length });
    },
  );
}
