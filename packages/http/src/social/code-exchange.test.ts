import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchangeCode } from './code-exchange.ts';

// A token endpoint answering each request with the status and body its path names.
const answers: Record<string, { status: number; body: string }> = {
  '/ok': { status: 200, body: '{"access_token":"tok","token_type":"bearer","expires_in":"3600"}' },
  '/rfc-refusal': { status: 400, body: '{"error":"invalid_grant","error_description":"Code was already redeemed."}' },
  '/graph-refusal': {
    status: 400,
    body: '{"error":{"message":"This authorization code has been used.","type":"OAuthException","code":100,"fbtrace_id":"A1"}}',
  },
  '/client-refusal': { status: 401, body: '{"error":"invalid_client"}' },
  '/html-refusal': { status: 403, body: '<html>Forbidden</html>' },
  '/unavailable': { status: 503, body: '' },
  '/busy': { status: 429, body: '{"error":{"message":"Application request limit reached","code":4}}' },
  '/request-timeout': { status: 408, body: '' },
  '/no-token': { status: 200, body: '{"token_type":"bearer"}' },
  '/redirect': { status: 302, body: '' },
};
const server = createServer((req, res) => {
  const a = answers[req.url ?? ''];
  if (!a) return req.socket.destroy();
  res.writeHead(a.status, { 'content-type': 'application/json' }).end(a.body);
});
let base: string;
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const exchange = (path: string) =>
  exchangeCode(`${base}${path}`, new URLSearchParams({ grant_type: 'authorization_code', code: 'c' }), {
    allowPrivate: true,
    timeoutMs: 5_000,
  });

describe('exchangeCode', () => {
  it('answers the token of a 200', async () => {
    expect(await exchange('/ok')).toEqual({ outcome: 'token', accessToken: 'tok', expiresIn: 3600 });
  });

  it('calls a 4xx a refusal of the code, naming the reason in the RFC 6749 or the Graph API form', async () => {
    expect(await exchange('/rfc-refusal')).toEqual({
      outcome: 'refused',
      message: 'HTTP 400, invalid_grant: Code was already redeemed.',
    });
    expect(await exchange('/graph-refusal')).toEqual({
      outcome: 'refused',
      message: 'HTTP 400, OAuthException, code 100, This authorization code has been used.',
    });
    expect(await exchange('/client-refusal')).toEqual({ outcome: 'refused', message: 'HTTP 401, invalid_client' });
    expect(await exchange('/html-refusal')).toEqual({ outcome: 'refused', message: 'HTTP 403' });
  });

  it('calls everything that says nothing of the code a failure: 5xx, 408, 429, no token, a redirect, no answer', async () => {
    for (const path of ['/unavailable', '/busy', '/request-timeout', '/no-token', '/redirect', '/reset']) {
      expect(await exchange(path), path).toMatchObject({ outcome: 'failed', timeout: false });
    }
    expect(await exchangeCode('ftp://example.com/token', new URLSearchParams(), { allowPrivate: false, timeoutMs: 5_000 })).toMatchObject({
      outcome: 'failed',
    });
  });
});
