import { SpillwayError } from '@spillway/core';
import { ip2smsParamsSchema, sendIp2sms, sendSingleMessage } from '@spillway/core/adapter';
import type { SendResponse } from '@spillway/core';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { Env } from '../env.ts';
import { defineRoute } from '../openapi.ts';
import { isJsonContentType, readJson } from '../read-json.ts';
import { chatappSingleMessageRequestSchema, sendResponseSchema, sentMessageSchema, singleMessageRequestSchema } from '../schemas.ts';
import { clientStorageOf } from './client-services.ts';

const gmsResponseSchema = sentMessageSchema.extend({ messagelistId: z.int() });

/** The classic gateway's parameters, each optional where it is given (query, form or JSON body). */
const ip2smsParams = ip2smsParamsSchema.partial();

const single = (res: SendResponse) => ({ messagelistId: res.messagelistId, ...res.messages[0]! });

/** The parameters of a classic gateway request: the query, overridden by a form or JSON body. */
async function gatewayParams(c: Context<Env>): Promise<Record<string, string | undefined>> {
  const params: Record<string, string | undefined> = { ...c.req.query() };
  const type = c.req.header('content-type') ?? '';
  if (/^application\/x-www-form-urlencoded|^multipart\/form-data/i.test(type)) {
    let form: Awaited<ReturnType<typeof c.req.parseBody>>;
    try {
      form = await c.req.parseBody();
    } catch (error) {
      // A form the platform's parser cannot read (a multipart body without its boundary, say).
      throw new SpillwayError('bad_request', `Malformed form body: ${(error as Error).message}`);
    }
    for (const [k, v] of Object.entries(form)) if (typeof v === 'string') params[k] = v;
  } else if (isJsonContentType(type)) {
    const body = await readJson(c);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new SpillwayError('validation_failed', 'The body must be an object of parameters', [
        { path: '(body)', message: 'expected an object' },
      ]);
    }
    for (const [k, v] of Object.entries(body)) if (typeof v === 'string' || typeof v === 'number') params[k] = String(v);
  } else if (type && (c.req.header('content-length') ?? '0') !== '0') {
    throw new SpillwayError('unsupported_media_type', 'Send parameters as the query, a form (application/x-www-form-urlencoded) or JSON');
  }
  return params;
}

/**
 * Registers the classic entry points into the messaging engine: `POST /api/GMSMessage/send_message`
 * (and its `/v1` alias), `POST /ip2sms` and `POST /ip2sms/chatapp_mess`.
 */
export function registerClassicRoutes(app: Hono<Env>): void {
  for (const path of ['/api/GMSMessage/send_message', '/api/GMSMessage/send_message/v1']) {
    defineRoute(
      app,
      {
        method: 'post',
        path,
        operationId: path.endsWith('/v1') ? 'sendSingleMessageV1' : 'sendSingleMessage',
        summary: `Send one message (GMSSendMessageReq)${path.endsWith('/v1') ? ', versioned path' : ''}`,
        description:
          'The body is one message of the messaging API (interface 2.1; `type` defaults to `sms`), sent through the same engine ' +
          'as `/bat/messagelist`: same validation, limits and billing; its status at `/bat/message/{messageId}`. `%member%` in the ' +
          'text takes the recipient’s per-phone data. Errors address the message’s fields (`to`, `text`).',
        tags: ['classic'],
        auth: 'basic-or-key',
        rateLimit: 'messaging',
        body: singleMessageRequestSchema,
        responses: {
          200: { description: 'The accepted message (GMSSendMessageResp)', schema: gmsResponseSchema },
          402: { description: 'Balance too low' },
          409: { description: 'customerMessageId reused with other content' },
        },
      },
      async (c) => {
        const engine = c.var.engine;
        const res = await sendSingleMessage(engine, clientStorageOf(engine), c.var.account.id, await readJson(c), { defaultType: 'sms' });
        return c.json(single(res));
      },
    );
  }

  defineRoute(
    app,
    {
      method: 'post',
      path: '/ip2sms',
      operationId: 'sendIp2sms',
      summary: 'Send an SMS the classic gateway way: query or form parameters (SendMessageResponse)',
      description:
        'Parameters `from` (or `sender`), `to` (or `phone`; several comma-separated, one message each), `text` (or `message`), ' +
        '`type` (default `sms`), `customerMessageId` (suffixed `-1`, `-2`... with several numbers), as query parameters, an ' +
        '`application/x-www-form-urlencoded` body or a JSON object. One campaign through the messaging engine. An error names ' +
        'a parameter as it was sent (`sender`, `phone[1]`, `message` for the aliases).',
      tags: ['classic'],
      auth: 'basic-or-key',
      rateLimit: 'messaging',
      query: ip2smsParams,
      // The same parameters as a form or a JSON object; none when they are in the query.
      body: ip2smsParams,
      bodyRequired: false,
      bodyMediaTypes: ['application/x-www-form-urlencoded', 'application/json'],
      responses: {
        200: { description: 'The campaign and one record per number', schema: sendResponseSchema },
        402: { description: 'Balance too low' },
        415: { description: 'A body that is neither a form nor JSON' },
      },
    },
    async (c) => {
      const engine = c.var.engine;
      return c.json(await sendIp2sms(engine, clientStorageOf(engine), c.var.account.id, await gatewayParams(c)));
    },
  );

  defineRoute(
    app,
    {
      method: 'post',
      path: '/ip2sms/chatapp_mess',
      operationId: 'sendChatappMessage',
      summary: 'Send one chat-app message (ChatappMessageDTO)',
      description:
        'One message of a `chatapp_*` type of the messaging API (default `chatapp_service`), with its `messageData`, through the ' +
        'messaging engine.',
      tags: ['classic'],
      auth: 'basic-or-key',
      rateLimit: 'messaging',
      body: chatappSingleMessageRequestSchema,
      responses: {
        200: { description: 'The accepted message', schema: gmsResponseSchema },
        402: { description: 'Balance too low' },
      },
    },
    async (c) => {
      const engine = c.var.engine;
      const res = await sendSingleMessage(engine, clientStorageOf(engine), c.var.account.id, await readJson(c), {
        defaultType: 'chatapp_service',
        requireTypePrefix: 'chatapp_',
      });
      return c.json(single(res));
    },
  );
}
