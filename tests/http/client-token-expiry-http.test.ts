import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeClock } from '@spillway/core';
import type { FakeClock } from '@spillway/core';
import { createTokenService } from '@spillway/http';
import { startServer } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

let s: RunningFixture;
let clock: FakeClock;
beforeAll(async () => {
  clock = createFakeClock(Date.UTC(2026, 10, 23, 12));
  s = await startServer({}, { clock });
});
afterAll(() => s.close());

/**
 * A client token of the server's account that lives one minute: issued by a token service over
 * the server's own storage (so signed with its stored key), since advancing the fake clock by
 * the hour of `POST /api/auth` would run every worker timer on the way.
 */
async function shortClientToken(): Promise<{ token: string; expiresAt: number }> {
  const issuer = createTokenService({ storage: s.server.storage, clock, clientTokenTtlSeconds: 60 });
  const account = await s.server.engine.accounts.getByLogin('acme');
  return issuer.issueClientToken(account!.id);
}

const balance = (headers: Record<string, string>) => s.call('/bat/balance', { headers, auth: 'none' });

describe('a client token cached by the auth cache', () => {
  it('stops working at its exp, even when a request cached it moments before', async () => {
    const { token, expiresAt } = await shortClientToken();
    // Ten seconds before the end: accepted, and so cached for the cache's 30 s.
    await clock.advance(expiresAt - clock.now() - 10_000);
    expect((await balance({ authorization: `Bearer ${token}` })).status).toBe(200);
    expect((await balance({ 'x-authorization-key': token })).status).toBe(200);

    await clock.advance(10_000);
    const bearer = await balance({ authorization: `Bearer ${token}` });
    expect(bearer.status).toBe(401);
    expect(await bearer.json()).toMatchObject({ error: 'unauthorized', message: 'token has expired', status: 401 });
    expect((await balance({ 'x-authorization-key': token })).status).toBe(401);
  });

  it('is still served from the cache while it lives', async () => {
    const { token } = await shortClientToken();
    const headers = { authorization: `Bearer ${token}` };
    expect((await balance(headers)).status).toBe(200);
    await clock.advance(20_000);
    expect((await balance(headers)).status).toBe(200);
  });
});
