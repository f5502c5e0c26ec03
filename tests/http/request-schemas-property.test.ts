import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, LOGIN, startServer } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

let s: RunningFixture;
let accountId: number;
let operatorId: number;
let messageId: number;
const ADMIN_KEY = 'property-test-admin-key-0123456789';
const GATEWAY_SECRET = `whsec_${Buffer.from('property-test-gateway-secret-01').toString('base64')}`;

/** Standard Webhooks headers of `body` for the signed gateway callback. */
function gatewaySignature(body: string): Record<string, string> {
  const id = `msg_${Math.random().toString(36).slice(2)}`;
  const at = new Date();
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(GATEWAY_SECRET).sign(id, at, body),
  };
}

beforeAll(async () => {
  s = await startServer({ SPILLWAY_GATEWAY_SECRET: GATEWAY_SECRET, SPILLWAY_ADMIN_KEY: ADMIN_KEY });
  accountId = (await s.server.engine.accounts.getByLogin(LOGIN))!.id;
  operatorId = (await s.server.storage.createOperator({ accountId, name: 'Property' }, Date.now())).id;
  // A message scheduled far ahead, so that PATCH /bat/message/{messageId} reaches its body.
  const scheduledAt = new Date(Date.now() + 30 * 86400_000).toISOString();
  const sent = await s.call('/bat/messagelist', {
    json: { messages: [{ type: 'sms', from: 'Acme', to: '9990000000100', text: 'hi', scheduledAt }] },
  });
  messageId = ((await sent.json()) as { messages: Array<{ messageId: number }> }).messages[0]!.messageId;
});
afterAll(() => s.close());

interface Operation {
  method: string;
  path: string;
  security: Array<Record<string, unknown>>;
}

/** Every operation of the OpenAPI document that takes a JSON body. */
async function operationsWithBodies(): Promise<Operation[]> {
  const doc = (await (await s.call('/openapi.json', { auth: 'none' })).json()) as {
    paths: Record<string, Record<string, { requestBody?: unknown; security?: Array<Record<string, unknown>> }>>;
  };
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (op.requestBody) out.push({ method: method.toUpperCase(), path, security: op.security ?? [] });
    }
  }
  return out;
}

/** Fresh credentials each call: a body may revoke the token it came with. */
async function authFor(op: Operation): Promise<Record<string, string>> {
  const schemes = op.security.flatMap((s) => Object.keys(s)).sort();
  const is = (...names: string[]) => names.length === schemes.length && names.every((n) => schemes.includes(n));
  if (schemes.length === 0) return {};
  if (is('apiKeyAuth', 'basicAuth', 'clientToken')) return { 'x-authorization-key': API_KEY };
  if (is('companyToken', 'companyTokenKey')) return { authorization: `Bearer ${await s.server.tokens.issueCompanyToken(accountId)}` };
  if (is('operatorToken')) {
    const token = await s.server.tokens.issueOperatorToken({ accountId, operatorId, expiresAt: Date.now() + 3600_000 });
    return { authorization: `Bearer ${token}` };
  }
  if (is('apiKeyAuth')) return { 'x-authorization-key': (await s.server.tokens.issueClientToken(accountId)).token };
  if (is('adminKey')) return { 'x-admin-key': ADMIN_KEY };
  throw new Error(`unknown security ${schemes.join('+')} of ${op.method} ${op.path}`);
}

// Field names of the interface, so that generated objects reach past the first level of the schemas.
const FIELDS = [
  'messages',
  'from',
  'to',
  'text',
  'type',
  'ttl',
  'messageData',
  'customerMessageId',
  'scheduledAt',
  'cancel',
  'alphaName',
  'url',
  'token',
  'login',
  'password',
  'id',
  'name',
  'expiresAt',
  'fromName',
  'toPhone',
  'messageType',
  'chatappMessage',
  'messengerMessage',
  'customerData',
  'keyboard',
  'buttons',
  'variables',
  'value',
  'recipient',
  'phoneNumber',
  'start',
  'steps',
  'edges',
  'channel',
  'revision',
  'routeId',
  'sheduledSent',
  'survey',
  'options',
  '__proto__',
  'constructor',
];
const json = fc.jsonValue({ maxDepth: 3 });
const record = fc.dictionary(fc.constantFrom(...FIELDS), json, { maxKeys: 6 });
const body = fc.oneof(
  json,
  record,
  fc.array(record, { maxLength: 3 }),
  record.map((r) => ({ messages: [r] })),
  fc.record({ messages: fc.array(record, { maxLength: 3 }) }, { requiredKeys: [] }),
);

describe('every request schema answers a 4xx JSON error for arbitrary JSON, never a 5xx', () => {
  it('holds for each operation with a body, through real HTTP', { timeout: 180_000 }, async () => {
    const ops = await operationsWithBodies();
    expect(ops.length).toBeGreaterThan(10);
    const reached: string[] = [];
    for (const op of ops) {
      const path = op.path.replace('{messageId}', String(messageId)).replace(/\{[^}]+\}/g, '1');
      const statuses = new Set<number>();
      await fc.assert(
        fc.asyncProperty(body, async (value) => {
          const text0 = JSON.stringify(value);
          const signed = op.path === '/gateway-callback' ? gatewaySignature(text0) : {};
          const res = await s.call(path, {
            method: op.method,
            auth: 'none',
            headers: { ...(await authFor(op)), ...signed, 'content-type': 'application/json' },
            body: text0,
          });
          const text = await res.text();
          statuses.add(res.status);
          const where = `${op.method} ${path} ${JSON.stringify(value).slice(0, 300)} -> ${res.status} ${text.slice(0, 300)}`;
          expect(res.status, where).toBeLessThan(500);
          if (res.status >= 400) {
            expect(res.headers.get('content-type'), where).toMatch(/application\/json/);
            expect(JSON.parse(text), where).toMatchObject({ error: expect.any(String), status: res.status, message: expect.any(String) });
          }
        }),
        { numRuns: 30 },
      );
      // The bodies reached validation: not every answer was an auth or routing refusal.
      if ([...statuses].some((st) => ![401, 403, 404, 405].includes(st))) reached.push(`${op.method} ${op.path}`);
      else console.log(`${op.method} ${op.path}: ${[...statuses].join(',')}`);
    }
    expect(reached).toHaveLength(ops.length);
  });
});
