import { createSpillwayClient } from '@spillway/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, startServer } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

// The classic single-message entry points through @spillway/client, written as a user writes
// them: `pnpm typecheck` compiles each call against the generated types, and the server answers
// them on a real port. Found by a user of the packed client in an app outside the workspace.
let s: RunningFixture;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

interface Operation {
  requestBody?: { required?: boolean; content: Record<string, { schema: { $ref?: string } }> };
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { anyOf?: Array<{ required?: string[]; $ref?: string }> }> };
}

async function documentOf(): Promise<Document> {
  return (await (await s.call('/openapi.json', { auth: 'none' })).json()) as Document;
}

describe('POST /ip2sms through the typed client', () => {
  // Regression: the document declared no body, so the client typed it `undefined`: the form or
  // JSON parameters the route reads could not be sent, only `body: undefined` compiled.
  it('takes its parameters as the query, a JSON object or a form, and no body when they are in the query', async () => {
    const spillway = createSpillwayClient({ baseUrl: s.url, auth: { apiKey: API_KEY } });
    const query = await spillway.POST('/ip2sms', { params: { query: { from: 'Acme', to: '99900000001', text: 'By query' } } });
    expect(query.data?.messages.map((m) => m.text)).toEqual(['By query']);

    const json = await spillway.POST('/ip2sms', { body: { from: 'Acme', to: '99900000002,99900000003', text: 'By JSON' } });
    expect(json.data?.messages.map((m) => m.to)).toEqual(['99900000002', '99900000003']);

    const form = await spillway.POST('/ip2sms', {
      body: { from: 'Acme', to: '99900000004', text: 'By form' },
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(form.data?.messages.map((m) => m.text)).toEqual(['By form']);

    const missing = await spillway.POST('/ip2sms');
    expect(missing.response.status).toBe(400);
    expect(missing.error?.details?.map((d) => d.path)).toEqual(['from', 'to', 'text']);
  });

  it('is documented with an optional body, as a form or JSON', async () => {
    const body = (await documentOf()).paths['/ip2sms']!['post']!.requestBody;
    expect(body?.required).toBe(false);
    expect(Object.keys(body?.content ?? {}).sort()).toEqual(['application/json', 'application/x-www-form-urlencoded']);
  });
});

describe('the single-message routes through the typed client', () => {
  // Regression: their bodies were documented as a message of /bat/messagelist, whose `type` is
  // required, though each route has a default: the client refused a body without it.
  it('send without a type: an SMS on /api/GMSMessage/send_message, a chatapp_service message on /ip2sms/chatapp_mess', async () => {
    const spillway = createSpillwayClient({ baseUrl: s.url, auth: { apiKey: API_KEY } });
    const gms = await spillway.POST('/api/GMSMessage/send_message', { body: { from: 'Acme', to: '99900000005', text: 'Hi' } });
    expect(gms.data).toMatchObject({ type: 'sms', to: '99900000005' });
    const v1 = await spillway.POST('/api/GMSMessage/send_message/v1', { body: { from: 'Acme', to: '99900000006', text: 'Hi' } });
    expect(v1.data).toMatchObject({ type: 'sms' });
    const chat = await spillway.POST('/ip2sms/chatapp_mess', { body: { from: 'Acme', to: '99900000007', text: 'Hi' } });
    expect(chat.data).toMatchObject({ type: 'chatapp_service' });

    // A type given is still checked against its own shape.
    const promo = await spillway.POST('/ip2sms/chatapp_mess', {
      body: { from: 'Acme', to: '99900000008', type: 'chatapp_promo', text: 'Sale', messageData: { buttonText: 'Go' } },
    });
    expect(promo.response.status).toBe(400);
  });

  it('are documented with the type optional for the default only, and the chat-app route with chat-app types only', async () => {
    const doc = await documentOf();
    const bodyOf = (path: string) => doc.paths[path]!['post']!.requestBody!.content['application/json']!.schema.$ref!.split('/').pop()!;
    expect(bodyOf('/api/GMSMessage/send_message')).toBe('SingleMessageRequest');
    expect(bodyOf('/api/GMSMessage/send_message/v1')).toBe('SingleMessageRequest');
    expect(bodyOf('/ip2sms/chatapp_mess')).toBe('ChatappMessageRequest');
    const options = (name: string) => doc.components.schemas[name]!.anyOf!;
    const [gmsDefault, ...gmsOthers] = options('SingleMessageRequest');
    expect(gmsDefault!.required).toEqual(expect.arrayContaining(['from', 'to', 'text']));
    expect(gmsDefault!.required).not.toContain('type');
    expect(gmsOthers).toEqual([{ $ref: '#/components/schemas/MessageItem' }]);
    const [chatDefault, ...chatOthers] = options('ChatappMessageRequest');
    expect(chatDefault!.required).not.toContain('type');
    expect(chatOthers.map((o) => o.$ref!.split('/').pop())).toEqual([
      'ChatappServiceMessage',
      'ChatappTransMessage',
      'ChatappPromoMessage',
      'ChatappCarouselMessage',
      'ChatappSurveyMessage',
      'ChatappOtpMessage',
      'ChatappSessionMessage',
    ]);
  });
});
