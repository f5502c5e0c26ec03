import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, readBody, socialWebhook } from '../support/local-http.ts';
import { startServer, until } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

const APP_SECRET = 'app-secret-for-tests';
const VERIFY_TOKEN = 'verify-me';
const TOKEN_KEY = '11'.repeat(32);
const ACCESS_TOKEN = 'EAAG-access-token-42';

// A local token server implementing the OAuth code exchange (form POST, JSON answer).
const exchanges: URLSearchParams[] = [];
const tokenServer = createServer((req, res) => {
  void readBody(req).then((body) => {
    const form = new URLSearchParams(body);
    exchanges.push(form);
    if (form.get('code') !== 'good-code' || form.get('client_secret') !== APP_SECRET) {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid_grant"}');
      return;
    }
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ access_token: ACCESS_TOKEN, token_type: 'bearer', expires_in: 3600 }));
  });
});
// A local graph API: echoes what it was asked, with which token; /big answers 2 MiB; /slow never answers.
const graphServer = createServer((req, res) => {
  void readBody(req).then((body) => {
    if (req.url?.startsWith('/v19.0/big')) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.alloc(2 * 1024 * 1024));
      return;
    }
    res
      .writeHead(201, { 'content-type': 'application/json' })
      .end(JSON.stringify({ method: req.method, url: req.url, authorization: req.headers.authorization, body }));
  });
});
const hookHits: string[] = [];
const hookServer = createServer((req, res) => {
  void readBody(req).then((body) => {
    hookHits.push(body);
    res.writeHead(200).end();
  });
});

let tokenUrl: string;
let graphUrl: string;
let hookUrl: string;
let s: RunningFixture;

beforeAll(async () => {
  tokenUrl = `${await listen(tokenServer)}/oauth/access_token`;
  graphUrl = await listen(graphServer);
  hookUrl = `${await listen(hookServer)}/hook`;
  s = await startServer({
    SPILLWAY_ALLOW_PRIVATE_URLS: 'true',
    SPILLWAY_SOCIAL_VERIFY_TOKEN: VERIFY_TOKEN,
    SPILLWAY_SOCIAL_APP_SECRET: APP_SECRET,
    SPILLWAY_SOCIAL_CLIENT_ID: 'client-1',
    SPILLWAY_SOCIAL_AUTHORIZE_URL: 'https://platform.example/dialog/oauth',
    SPILLWAY_SOCIAL_TOKEN_URL: tokenUrl,
    SPILLWAY_SOCIAL_REDIRECT_URI: 'https://spillway.example/social/add-token',
    SPILLWAY_SOCIAL_GRAPH_URL: graphUrl,
    SPILLWAY_SOCIAL_TOKEN_KEY: TOKEN_KEY,
  });
});
afterAll(async () => {
  await s.close();
  for (const server of [tokenServer, graphServer, hookServer]) await new Promise<void>((resolve) => server.close(() => resolve()));
});

const json = async (res: Response) => (await res.json()) as any;
const sign = (body: string, secret = APP_SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
const webhook = (phoneNumberId: string, from: string, text: string) => socialWebhook(phoneNumberId, [{ from, id: 'wamid.1', text }]);

const connect = async (code = 'good-code') => {
  const auth = await json(await s.call('/social/authorize?alphaName=Acme&externalId=pn-100'));
  return s.call(`/social/add-token?code=${code}&state=${auth.state}`, { auth: 'none' });
};

describe('GET /social (handshake)', () => {
  it('answers the challenge for the right token, 403 for a wrong one, 400 for a bad request', async () => {
    const ok = await s.call(`/social?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1158201444`, { auth: 'none' });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('1158201444');
    const wrong = await s.call('/social?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1', { auth: 'none' });
    expect(wrong.status).toBe(403);
    expect(await json(wrong)).toMatchObject({ error: 'forbidden', status: 403 });
    expect((await s.call(`/social?hub.mode=unsubscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1`, { auth: 'none' })).status).toBe(
      400,
    );
  });
});

describe('OAuth code exchange and the stored token', () => {
  it('exchanges the code at the token URL and stores the token encrypted', async () => {
    const auth = await json(await s.call('/social/authorize?alphaName=Acme&externalId=pn-100'));
    const link = new URL(auth.url);
    expect(link.origin + link.pathname).toBe('https://platform.example/dialog/oauth');
    expect(Object.fromEntries(link.searchParams)).toMatchObject({ client_id: 'client-1', state: auth.state, response_type: 'code' });

    const res = await s.call(`/api/marketplace/callback?code=good-code&state=${auth.state}`, { auth: 'none' });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ alphaName: 'Acme', externalId: 'pn-100', connected: true });
    expect(Object.fromEntries(exchanges.at(-1)!)).toEqual({
      grant_type: 'authorization_code',
      code: 'good-code',
      client_id: 'client-1',
      client_secret: APP_SECRET,
      redirect_uri: 'https://spillway.example/social/add-token',
    });
    // At rest the token is ciphertext, never the token itself.
    const db = (s.server.storage as unknown as { db: { prepare(sql: string): { all(): Array<Record<string, unknown>> } } }).db;
    const rows = db.prepare('SELECT token_ciphertext FROM social_connections').all();
    expect(rows).toHaveLength(1);
    expect(String(rows[0]!.token_ciphertext)).toMatch(/^v1\./);
    expect(JSON.stringify(rows)).not.toContain(ACCESS_TOKEN);
    // The state is single use.
    expect((await s.call(`/social/add-token?code=good-code&state=${auth.state}`, { auth: 'none' })).status).toBe(400);
  });

  it('answers 502 when the token server refuses the code, and 400/404 for bad starts', async () => {
    const refused = await connect('bad-code');
    expect(refused.status).toBe(502);
    expect(await json(refused)).toMatchObject({ error: 'bad_gateway' });
    expect((await s.call('/social/add-token?code=x&state=unknown', { auth: 'none' })).status).toBe(400);
    expect((await s.call('/social/add-token?state=unknown', { auth: 'none' })).status).toBe(400);
    expect((await s.call('/social/authorize?alphaName=NotOurs&externalId=pn-1')).status).toBe(404);
    expect((await s.call('/social/authorize?alphaName=Acme&externalId=pn-1', { auth: 'none' })).status).toBe(401);
  });

  it('proxies the graph API with the stored token, refusing bad paths', async () => {
    expect((await connect()).status).toBe(200);
    const res = await s.call('/social-graph/v19.0/pn-100/messages?fields=id&alphaName=Acme', {
      json: { messaging_product: 'whatsapp', to: '4915123456789', text: { body: 'hi' } },
    });
    expect(res.status).toBe(201);
    const echoed = await json(res);
    expect(echoed).toMatchObject({ method: 'POST', url: '/v19.0/pn-100/messages?fields=id', authorization: `Bearer ${ACCESS_TOKEN}` });
    expect(JSON.parse(echoed.body)).toMatchObject({ to: '4915123456789' });
    const get = await json(await s.call('/social-graph/v19.0/me'));
    expect(get).toMatchObject({ method: 'GET', url: '/v19.0/me', authorization: `Bearer ${ACCESS_TOKEN}` });

    expect((await s.call('/social-graph/latest/me')).status).toBe(400);
    expect((await s.call('/social-graph/v19.0/me?alphaName=Promo')).status).toBe(404);
    const big = await s.call('/social-graph/v19.0/big');
    expect(big.status).toBe(502);
    expect((await json(big)).message).toContain('exceeds');
    expect((await s.call('/social-graph/v19.0/me', { auth: 'none' })).status).toBe(401);
  });

  it('turns signed webhook messages into incoming messages of the connected alpha-name', async () => {
    await s.call('/api/AlphaName/callback', { method: 'PUT', json: { alphaName: 'Acme', url: hookUrl } });
    const body = webhook('pn-100', '4915123456789', 'Hello shop');
    const res = await s.call('/social', {
      method: 'POST',
      auth: 'none',
      body,
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(body) },
    });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ received: 1, ignored: 0 });
    await until(
      async () => hookHits.length,
      (n) => n > 0,
    );
    expect(JSON.parse(hookHits[0]!)).toMatchObject({ alphaName: 'Acme', phoneNumber: '4915123456789', text: 'Hello shop' });

    const unknown = webhook('pn-999', '4915123456789', 'x');
    expect(
      await json(
        await s.call('/social', { method: 'POST', auth: 'none', body: unknown, headers: { 'x-hub-signature-256': sign(unknown) } }),
      ),
    ).toEqual({
      received: 0,
      ignored: 1,
    });
  });

  it('refuses webhooks without a valid signature, storing nothing', async () => {
    const db = (s.server.storage as unknown as { db: { prepare(sql: string): { get(): { n: number } } } }).db;
    const stored = () => db.prepare('SELECT COUNT(*) AS n FROM inbound_messages').get().n;
    const before = stored();
    const body = webhook('pn-100', '4915123456789', 'forged');
    for (const signature of [undefined, sign(body, 'other-secret'), 'sha256=zz']) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (signature) headers['x-hub-signature-256'] = signature;
      const res = await s.call('/social', { method: 'POST', auth: 'none', body, headers });
      expect(res.status).toBe(401);
    }
    expect(stored()).toBe(before);
  });

  it('keeps a connection to its account', async () => {
    const other = await json(
      await s.call('/api/client/provision', { json: { login: 'social-co', password: 'other-password', alphaNames: ['Acme'] } }),
    );
    const headers = { 'x-authorization-key': other.apiKey };
    expect((await s.call('/social-graph/v19.0/me', { headers })).status).toBe(404);
    expect((await s.call('/social-graph/v19.0/me?alphaName=Acme', { headers })).status).toBe(404);
    expect((await s.call('/social/deauthorize', { json: { alphaName: 'Acme' }, headers })).status).toBe(404);
    expect((await s.call('/social-graph/v19.0/me')).status).toBe(201);
  });

  it("refuses another account's connected external id, at the authorization and at the code's exchange", async () => {
    const other = await json(
      await s.call('/api/client/provision', { json: { login: 'social-taker', password: 'other-password', alphaNames: ['Acme'] } }),
    );
    const headers = { 'x-authorization-key': other.apiKey };
    // A state the other account took before the id was connected here (pn-100 is, by the tests above).
    const early = await s.call('/social/authorize?alphaName=Acme&externalId=pn-100', { headers });
    expect(early.status).toBe(409);
    expect(await json(early)).toMatchObject({ error: 'conflict', message: expect.stringContaining('another account') });
    const fresh = await json(await s.call('/social/authorize?alphaName=Acme&externalId=pn-777', { headers }));
    // Meanwhile this account connects pn-777 itself: the other's state can no longer take it.
    const mine = await json(await s.call('/social/authorize?alphaName=Acme&externalId=pn-777'));
    expect((await s.call(`/social/add-token?code=good-code&state=${mine.state}`, { auth: 'none' })).status).toBe(200);
    const taken = await s.call(`/social/add-token?code=good-code&state=${fresh.state}`, { auth: 'none' });
    expect(taken.status).toBe(409);
    // The connection stays this account's.
    expect((await s.call('/social-graph/v19.0/me?alphaName=Acme')).status).toBe(201);
    expect((await s.call('/social-graph/v19.0/me?alphaName=Acme', { headers })).status).toBe(404);
  });

  it('removes the token on deauthorize', async () => {
    const res = await s.call('/social/deauthorize', { json: { alphaName: 'Acme' } });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ alphaName: 'Acme', removed: true });
    expect((await s.call('/social/deauthorize', { json: { alphaName: 'Acme' } })).status).toBe(404);
    expect((await s.call('/social-graph/v19.0/me')).status).toBe(404);
    expect((await s.call('/social/deauthorize', { json: {} })).status).toBe(400);
    expect((await s.call('/social/deauthorize', { auth: 'none', json: { alphaName: 'Acme' } })).status).toBe(401);
  });
});

describe("POST /social/deauthorize with the platform's signed_request", () => {
  /** What the platform posts: base64url(HMAC-SHA256(payload part, app secret)) + '.' + base64url(JSON). */
  const signedRequest = (payload: Record<string, unknown>, secret = APP_SECRET) => {
    const part = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${createHmac('sha256', secret).update(part).digest('base64url')}.${part}`;
  };
  const deauthorize = (signed: string) =>
    s.call('/social/deauthorize', {
      auth: 'none',
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ signed_request: signed }).toString(),
    });

  it("removes that user's token; a bad signature, algorithm or age is refused with 401 and removes nothing", async () => {
    const auth = await json(await s.call('/social/authorize?alphaName=Acme&externalId=fb-user-77'));
    expect((await s.call(`/social/add-token?code=good-code&state=${auth.state}`, { auth: 'none' })).status).toBe(200);
    expect((await s.call('/social-graph/v19.0/me')).status).toBe(201);
    const now = Math.floor(Date.now() / 1000);
    const payload = { algorithm: 'HMAC-SHA256', issued_at: now, user_id: 'fb-user-77' };

    for (const bad of [
      signedRequest(payload, 'another-secret'),
      signedRequest({ ...payload, algorithm: 'HMAC-SHA1' }),
      signedRequest({ ...payload, issued_at: now - 7200 }),
      signedRequest({ algorithm: 'HMAC-SHA256', issued_at: now }),
      'not-a-signed-request',
    ]) {
      const res = await deauthorize(bad);
      expect(res.status, bad).toBe(401);
      expect(await json(res)).toMatchObject({
        error: 'unauthorized',
        status: 401,
        message: expect.stringMatching(/^invalid signed_request/),
      });
    }
    expect((await s.call('/social-graph/v19.0/me')).status).toBe(201);

    const res = await deauthorize(signedRequest(payload));
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ userId: 'fb-user-77', removed: true });
    expect((await s.call('/social-graph/v19.0/me')).status).toBe(404);
    // Again: nothing left to remove, still a 200 for the platform.
    expect(await json(await deauthorize(signedRequest(payload)))).toEqual({ userId: 'fb-user-77', removed: false });
  });
});

describe('upstreams without private addresses allowed', () => {
  it('refuses a loopback token URL', async () => {
    const strict = await startServer({
      SPILLWAY_SOCIAL_TOKEN_URL: tokenUrl,
      SPILLWAY_SOCIAL_GRAPH_URL: graphUrl,
      SPILLWAY_SOCIAL_TOKEN_KEY: TOKEN_KEY,
      SPILLWAY_SOCIAL_APP_SECRET: APP_SECRET,
    });
    try {
      const auth = await json(await strict.call('/social/authorize?alphaName=Acme&externalId=pn-7'));
      const res = await strict.call(`/social/add-token?code=good-code&state=${auth.state}`, { auth: 'none' });
      expect(res.status).toBe(502);
      expect((await json(res)).message).toContain('non-public');
    } finally {
      await strict.close();
    }
  });
});

describe('a server without the social settings', () => {
  it('answers 501 not_configured naming the setting, not a 500', async () => {
    const bare = await startServer();
    try {
      // The start of the authorization too: a state whose code could never be exchanged is no answer.
      const authorize = await bare.call('/social/authorize?alphaName=Acme&externalId=pn-7');
      expect(authorize.status).toBe(501);
      expect(await json(authorize)).toMatchObject({ error: 'not_configured', message: expect.stringContaining('SPILLWAY_SOCIAL_') });
      const added = await bare.call(`/social/add-token?code=good-code&state=some-state`, { auth: 'none' });
      expect(added.status).toBe(501);
      expect(await json(added)).toMatchObject({ error: 'not_configured', message: expect.stringContaining('SPILLWAY_SOCIAL_') });
      const graph = await bare.call('/social-graph/v19.0/me?alphaName=Acme');
      expect(graph.status).toBe(501);
      expect(await json(graph)).toMatchObject({ error: 'not_configured', message: expect.stringContaining('SPILLWAY_SOCIAL_') });
    } finally {
      await bare.close();
    }
  });
});
