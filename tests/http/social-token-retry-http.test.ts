import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeClock } from '@spillway/core';
import { createSimulator } from '@spillway/channels';
import { createNodeHasher, createSpillway } from '@spillway/http';
import type { Spillway } from '@spillway/http';
import { createPostgresStorage } from '@spillway/postgres';
import { createSqliteStorage } from '@spillway/sqlite';
import { listen, readBody } from '../support/local-http.ts';
import { testDatabase } from '../support/test-database.ts';

// The code exchange of GET /social/add-token: a refusal of the code by the token endpoint ends the
// one-time state (a code is used once), a failure with no verdict on the code (no answer, a
// time-out, a 5xx, 429) keeps it for a retry of the same redirect within the state's lifetime.
// The state used to be gone after any failure: the user could only start again. SQLite, and
// PostgreSQL with SPILLWAY_TEST_STORAGE=postgres and DATABASE_URL (the states are stored).
const database = testDatabase('social_token');
const { url: databaseUrl, schema } = database;

const CLIENT_ID = 'client-1';
const CLIENT_SECRET = 'app-secret-for-tests';
const REDIRECT_URI = 'https://spillway.example/social/add-token';
const ACCESS_TOKEN = 'EAAG-access-token-7';
/** The upstream time limit of the Spillway under test, ms. */
const TIMEOUT_MS = 300;

/**
 * A token endpoint as RFC 6749 documents it (section 4.1.3, answers of sections 5.1 and 5.2): a
 * form POST of `grant_type=authorization_code`, the client's id and secret and the code issued
 * for `redirect_uri`; a code is exchanged once, and a used, unknown or mismatched one is a 400
 * `invalid_grant`; wrong client credentials a 401 `invalid_client`. `faults` are what goes wrong
 * with the next requests before the code is looked at (so it stays unused), except `redeem-then-500`,
 * which exchanges it and then fails the answer.
 */
type Fault = 'reset' | 'silent' | '500' | '503' | '429' | 'no-token' | 'redeem-then-500';
const faults: Fault[] = [];
const issued = new Map<string, { redirectUri: string; used: boolean }>();
const held: ServerResponse[] = [];
let requests = 0;

const issueCode = (): string => {
  const code = randomBytes(12).toString('base64url');
  issued.set(code, { redirectUri: REDIRECT_URI, used: false });
  return code;
};
const answer = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers }).end(JSON.stringify(body));

const tokenServer = createServer((req, res) => {
  void readBody(req).then((raw) => {
    requests++;
    const fault = faults.shift();
    if (fault === 'reset') return req.socket.destroy();
    if (fault === 'silent') return void held.push(res);
    if (fault === '500') return answer(res, 500, { error: 'server_error' });
    if (fault === '503') return answer(res, 503, { error: 'temporarily_unavailable' }, { 'retry-after': '1' });
    if (fault === '429') return answer(res, 429, { error: { message: 'Application request limit reached', code: 4 } });
    if (fault === 'no-token') return answer(res, 200, { token_type: 'bearer' });
    const form = new URLSearchParams(raw);
    if (form.get('grant_type') !== 'authorization_code') return answer(res, 400, { error: 'unsupported_grant_type' });
    if (form.get('client_id') !== CLIENT_ID || form.get('client_secret') !== CLIENT_SECRET) {
      return answer(res, 401, { error: 'invalid_client', error_description: 'Client authentication failed' });
    }
    const grant = issued.get(form.get('code') ?? '');
    if (!grant || grant.used || grant.redirectUri !== form.get('redirect_uri')) {
      return answer(res, 400, { error: 'invalid_grant', error_description: 'Code was already redeemed or is unknown' });
    }
    grant.used = true;
    if (fault === 'redeem-then-500') return answer(res, 500, { error: 'server_error' });
    return answer(res, 200, { access_token: ACCESS_TOKEN, token_type: 'bearer', expires_in: 3600 });
  });
});

const clock = createFakeClock(Date.UTC(2026, 10, 28, 12));
const auth = `Basic ${Buffer.from('shop:shop-password').toString('base64')}`;
let spillway: Spillway;
let origin: string;

beforeAll(async () => {
  const tokenUrl = `${await listen(tokenServer)}/oauth/access_token`;
  spillway = createSpillway({
    storage: databaseUrl ? createPostgresStorage({ connectionString: databaseUrl, schema }) : createSqliteStorage(),
    channels: [createSimulator({ latencyMs: 0 })],
    hasher: createNodeHasher({ N: 2 ** 12 }),
    logger: { info: () => {}, warn: () => {}, error: () => {} },
    clock,
    workers: false,
    metrics: false,
    allowPrivateUrls: true,
    http: {
      social: {
        appSecret: CLIENT_SECRET,
        clientId: CLIENT_ID,
        tokenUrl,
        redirectUri: REDIRECT_URI,
        graphUrl: 'https://graph.example',
        tokenKey: '33'.repeat(32),
        allowPrivateUrls: true,
        timeoutMs: TIMEOUT_MS,
      },
    },
  });
  const server = await spillway.listen({ port: 0, hostname: '127.0.0.1' });
  origin = `http://127.0.0.1:${server.port}`;
  const account = await spillway.engine.accounts.ensure({ login: 'shop', password: 'shop-password' });
  await spillway.engine.accounts.approveAlphaName(account.id, 'Shop');
});
afterAll(async () => {
  for (const res of held) res.destroy();
  await spillway?.stop();
  await new Promise<void>((resolve) => tokenServer.close(() => resolve()));
  await database.drop();
});

const json = async (res: Response) => (await res.json()) as { error?: string; message?: string; status?: number; connected?: boolean };
/** A new state for connecting `externalId` to Shop (the start of the flow). */
const authorize = async (externalId: string): Promise<string> => {
  const res = await fetch(`${origin}/social/authorize?alphaName=Shop&externalId=${externalId}`, { headers: { authorization: auth } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { state: string }).state;
};
/** The platform's redirect of the user back with the code and the state. */
const redirect = (code: string, state: string) =>
  fetch(`${origin}/social/add-token?code=${encodeURIComponent(code)}&state=${encodeURIComponent(state)}`);

describe(`the code exchange of /social/add-token (${database.label})`, () => {
  it('keeps the state after a failure with no verdict on the code, so that the same redirect then connects', async () => {
    for (const fault of ['reset', '500', '503', '429', 'no-token'] as const) {
      const state = await authorize(`pn-${fault}`);
      const code = issueCode();
      faults.push(fault);
      const failed = await redirect(code, state);
      expect(failed.status, fault).toBe(502);
      const body = await json(failed);
      expect(body, fault).toMatchObject({ error: 'bad_gateway', status: 502 });
      expect(body.message, fault).toMatch(/retry/i);
      // The same redirect again (the user reloads): the state was kept and the code is still good.
      const retried = await redirect(code, state);
      expect(retried.status, fault).toBe(200);
      expect(await json(retried), fault).toMatchObject({ externalId: `pn-${fault}`, connected: true });
      // Then the state is used up.
      expect((await redirect(code, state)).status, fault).toBe(400);
    }
  });

  it('keeps the state after a time-out (504)', async () => {
    const state = await authorize('pn-slow');
    const code = issueCode();
    faults.push('silent');
    const failed = await redirect(code, state);
    expect(failed.status).toBe(504);
    expect(await json(failed)).toMatchObject({ error: 'gateway_timeout', message: expect.stringMatching(/retry/i) });
    const retried = await redirect(code, state);
    expect(retried.status).toBe(200);
    expect(await json(retried)).toMatchObject({ externalId: 'pn-slow', connected: true });
  });

  it('ends the state when the token endpoint refuses the code, and says to start again', async () => {
    const state = await authorize('pn-refused');
    const sent = requests;
    const refused = await redirect('never-issued', state);
    expect(refused.status).toBe(502);
    const body = await json(refused);
    expect(body).toMatchObject({ error: 'bad_gateway', status: 502 });
    expect(body.message).toContain('invalid_grant');
    expect(body.message).toContain('start again at /social/authorize');
    // Even a good code no longer goes with this state: it is not sent to the platform.
    const again = await redirect(issueCode(), state);
    expect(again.status).toBe(400);
    expect((await json(again)).message).toMatch(/start again/);
    expect(requests).toBe(sent + 1);
  });

  it('ends the state on the refusal of a code the platform redeemed before its answer failed', async () => {
    const state = await authorize('pn-redeemed');
    const code = issueCode();
    faults.push('redeem-then-500');
    expect((await redirect(code, state)).status).toBe(502);
    // The retry finds the code used: refused, so the state ends.
    const retried = await redirect(code, state);
    expect(retried.status).toBe(502);
    expect((await json(retried)).message).toMatch(/invalid_grant.*start again/);
    expect((await redirect(code, state)).status).toBe(400);
  });

  it('keeps a state only within its lifetime (10 minutes)', async () => {
    const state = await authorize('pn-late');
    const code = issueCode();
    faults.push('503');
    expect((await redirect(code, state)).status).toBe(502);
    await clock.advance(10 * 60_000);
    const late = await redirect(code, state);
    expect(late.status).toBe(400);
    expect((await json(late)).message).toMatch(/expired/);
  });
});
