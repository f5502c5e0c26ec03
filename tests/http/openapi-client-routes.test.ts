import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

// Every route of section 4.3 of the interface; `/gateway-callback` is documented with the receipts path.
const SECTION_4_3 = `
get /api/AlphaName/sms/status
post /api/AlphaName/sms/application
get /api/AlphaName/wallet/info
post /api/auth
post /bots/application
post /api/CascadeMessage/send_message
post /api/CascadeMessage/{referralGuid}/send_message
post /api/CascadeMessage/send_message_async
post /api/CascadeMessage/{referralGuid}/send_message_async
post /api/CascadeMessage/send_message/gateway/messenger-chatapp/async
post /api/CascadeMessage/{referralGuid}/send_message/gateway/messenger-chatapp/async
get /api/CascadeMessage/status_guid/{guid}
get /api/CascadeMessage/status_id/{id}
post /api/CascadeMessage/broadcast
put /chat_bot/bot_receiver/phone
post /api/client/provision
post /api/client/{referralId}
post /api/client/organization
get /api/clientsenders
get /api/Costs/bots
post /api/external-data/user-bonuses
post /api/external-data/user-bonuses/{phoneNumber}
post /api/email/send
post /api/GMSMessage/send_message/v1
post /api/GMSMessage/send_message
post /ip2sms
post /ip2sms/chatapp_mess
get /social/add-token
post /social/deauthorize
get /social
post /social
get /social-graph/{apiVersion}/{path}
post /social-graph/{apiVersion}/{path}
post /api/myCodeBot/sendChatMessage
get /api/marketplace/callback
post /organizations
get /organizations
`
  .trim()
  .split('\n')
  .map((line) => line.split(' ') as [string, string]);

let s: RunningFixture;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

describe('/openapi.json and the client-management API', () => {
  it('documents every route of section 4.3 with its answer, under the version label v1', async () => {
    const doc = (await (await fetch(`${s.url}/openapi.json`)).json()) as any;
    expect(doc.info.version).toBe('v1');
    const missing = SECTION_4_3.filter(([method, path]) => !doc.paths[path]?.[method]);
    expect(missing).toEqual([]);
    for (const [method, path] of SECTION_4_3) {
      const op = doc.paths[path][method];
      expect(op.responses['200'], `${method} ${path}`).toBeDefined();
      expect(op.summary, `${method} ${path}`).toBeTruthy();
    }
  });

  it('answers every documented client route with something other than 404 No route', async () => {
    for (const [method, path] of SECTION_4_3) {
      const concrete = path
        .replace('{referralGuid}', crypto.randomUUID())
        .replace('{referralId}', crypto.randomUUID())
        .replace(/\{[^}]+\}/g, 'x');
      const res = await s.call(concrete, { method: method.toUpperCase(), auth: 'none' });
      const body = res.headers.get('content-type')?.includes('json') ? ((await res.json()) as any) : null;
      expect(body?.message ?? '', `${method} ${path}`).not.toMatch(/^No route/);
    }
  });
});
