import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { startCallbackReceiver } from '../support/callback-receiver.ts';
import { LOGIN, startServer, until } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

let receiver: Awaited<ReturnType<typeof startCallbackReceiver>>;
let hookUrl: string;
let hits: Awaited<ReturnType<typeof startCallbackReceiver>>['hits'];

beforeAll(async () => {
  receiver = await startCallbackReceiver({ path: '/spillway/inbound', status: 200 });
  hookUrl = receiver.url;
  hits = receiver.hits;
});

afterAll(() => receiver.close());

const json = async (res: Response) => (await res.json()) as Record<string, any>;

describe('incoming chat-app messages over HTTP (private URLs allowed)', () => {
  let s: RunningFixture;
  beforeAll(async () => {
    s = await startServer({ SPILLWAY_ALLOW_PRIVATE_URLS: 'true' });
  });
  afterAll(() => s.close());

  it('delivers a signed webhook to the alpha-name callback URL', async () => {
    const put = await s.call('/api/AlphaName/callback', { method: 'PUT', json: { alphaName: 'Acme', url: hookUrl } });
    expect(put.status).toBe(200);
    const { secret } = await json(await s.call('/api/AlphaName/callback/secret'));
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);

    const res = await s.call('/sandbox/inbound', { json: { alphaName: 'Acme', phoneNumber: '+79991234567', text: 'Where is my parcel?' } });
    expect(res.status).toBe(200);
    const receipt = await json(res);
    expect(receipt).toMatchObject({ alphaName: 'Acme', phoneNumber: '79991234567', text: 'Where is my parcel?', delivery: 'queued' });
    expect(receipt.idUuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Number.isNaN(Date.parse(receipt.dt))).toBe(false);

    await until(
      async () => hits.length,
      (n) => n > 0,
    );
    expect(hits).toHaveLength(1);
    const hit = hits[0]!;
    expect(hit.headers['webhook-id']).toBe(receipt.idUuid);
    const { delivery: _delivery, ...payload } = receipt;
    expect(new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>)).toEqual(payload);

    const record = await until(
      async () => json(await s.call(`/sandbox/inbound/${receipt.idUuid}`)),
      (r) => r.delivery?.status === 'delivered',
    );
    expect(record).toMatchObject({ ...payload, delivery: { status: 'delivered', attempts: 1, url: hookUrl, lastError: null } });
  });

  it('records without webhook for an alpha-name without callback', async () => {
    const receipt = await json(await s.call('/sandbox/inbound', { json: { alphaName: 'Promo', phoneNumber: '79991234567', text: 'hi' } }));
    expect(receipt.delivery).toBe('no_callback');
    expect((await json(await s.call(`/sandbox/inbound/${receipt.idUuid}`))).delivery).toBeNull();
  });

  it('answers 404 for an alpha-name of no account, 400 listing every bad field, 401 without credentials', async () => {
    const missing = await s.call('/sandbox/inbound', { json: { alphaName: 'Nope', phoneNumber: '79991234567', text: 'hi' } });
    expect(missing.status).toBe(404);
    expect(await json(missing)).toMatchObject({ error: 'not_found', status: 404 });

    const bad = await s.call('/sandbox/inbound', { json: { alphaName: '', text: 7 } });
    expect(bad.status).toBe(400);
    const paths = ((await json(bad)).details as Array<{ path: string }>).map((d) => d.path).sort();
    expect(paths).toEqual(['alphaName', 'phoneNumber', 'text']);

    const badNumber = await s.call('/sandbox/inbound', { json: { alphaName: 'Acme', phoneNumber: '12', text: 'hi' } });
    expect((await json(badNumber)).details).toEqual([{ path: 'phoneNumber', message: 'not a valid phone number' }]);

    expect(
      (await s.call('/sandbox/inbound', { auth: 'none', json: { alphaName: 'Acme', phoneNumber: '79991234567', text: 'hi' } })).status,
    ).toBe(401);
    expect((await s.call('/api/AlphaName/callback/secret', { auth: 'none' })).status).toBe(401);
    expect((await s.call('/sandbox/inbound/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it('keeps the same secret across reads', async () => {
    const a = await json(await s.call('/api/AlphaName/callback/secret'));
    const b = await json(await s.call('/api/AlphaName/callback/secret', { auth: 'basic' }));
    expect(a.secret).toBe(b.secret);
  });
});

describe('incoming chat-app messages over HTTP (private URLs refused, the default)', () => {
  let s: RunningFixture;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s.close());

  it('refuses a private or loopback callback URL when it is set, without echoing resolved addresses', async () => {
    for (const url of [hookUrl, 'http://10.1.2.3/hook', 'http://[::1]/hook', 'http://169.254.169.254/latest']) {
      const put = await s.call('/api/AlphaName/callback', { method: 'PUT', json: { alphaName: 'Acme', url } });
      expect(put.status).toBe(400);
      const body = await json(put);
      expect(body).toMatchObject({ error: 'validation_failed', status: 400, details: [{ path: 'url' }] });
      expect(body.message).toMatch(/refused to call an? [a-z-]+ address/);
      // The switch of a server and the option of an embedder: set where each runs.
      expect(body.message).toMatch(/SPILLWAY_ALLOW_PRIVATE_URLS=true .*allowPrivateUrls: true/);
    }
    // A name that resolves to loopback is refused too, and the answer names no address.
    const named = await json(
      await s.call('/api/AlphaName/callback', { method: 'PUT', json: { alphaName: 'Acme', url: 'http://localhost:9/hook' } }),
    );
    expect(named).toMatchObject({ error: 'validation_failed', status: 400 });
    expect(named.message).toContain('localhost: it resolves to a non-public address');
    expect(JSON.stringify(named)).not.toMatch(/127\.0\.0\.1|::1/);
  });

  it('still refuses a loopback callback at delivery (set before the check), with a clear error, without calling it', async () => {
    const before = hits.length;
    const account = await s.server.engine.accounts.getByLogin(LOGIN);
    await s.server.engine.accounts.setAlphaNameCallback(account!.id, 'Acme', hookUrl);
    const receipt = await json(await s.call('/sandbox/inbound', { json: { alphaName: 'Acme', phoneNumber: '79991234567', text: 'hi' } }));
    expect(receipt.delivery).toBe('queued');
    const record = await until(
      async () => json(await s.call(`/sandbox/inbound/${receipt.idUuid}`)),
      (r) => r.delivery?.status !== 'pending',
    );
    expect(record.delivery).toMatchObject({ status: 'failed', attempts: 1 });
    expect(record.delivery.lastError).toMatch(/refused to call a loopback address.*SPILLWAY_ALLOW_PRIVATE_URLS/);
    expect(hits.length).toBe(before);
  });
});
