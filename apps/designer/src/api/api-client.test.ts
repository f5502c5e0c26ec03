import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, LOGIN, PASSWORD, startServer, until } from '../../../../tests/support/server-fixture.ts';
import type { RunningFixture } from '../../../../tests/support/server-fixture.ts';
import { ApiError, accountLabel, createApiClient } from './api-client.ts';
import { describeError } from './describe-error.ts';

let fixture: RunningFixture;
beforeAll(async () => {
  fixture = await startServer({}, { designerDir: false });
});
afterAll(() => fixture.close());

describe('API client', () => {
  it('signs in with the API key or with login and password, and lists the built-in routes first', async () => {
    for (const credentials of [{ apiKey: API_KEY }, { login: LOGIN, password: PASSWORD }]) {
      const routes = await createApiClient({ baseUrl: fixture.url, credentials }).listRoutes();
      expect(routes.slice(0, 3).map((r) => [r.id, r.builtin])).toEqual([
        ['default', true],
        ['messenger-first', true],
        ['flashcall', true],
      ]);
    }
  });

  it('names the account of the credentials, the header showing its login (and its name when that differs)', async () => {
    for (const credentials of [{ apiKey: API_KEY }, { login: LOGIN, password: PASSWORD }]) {
      const account = await createApiClient({ baseUrl: fixture.url, credentials }).account();
      expect(account).toMatchObject({ login: LOGIN, currency: expect.any(String) });
      expect(accountLabel(account)).toBe(account.name === LOGIN ? LOGIN : `${account.name} (${LOGIN})`);
    }
    expect(accountLabel({ clientId: 2, login: 'acme', name: 'Acme Ltd', currency: 'EUR' })).toBe('Acme Ltd (acme)');
    expect(accountLabel({ clientId: 2, login: 'acme', name: '', currency: 'EUR' })).toBe('acme');
    const wrong = createApiClient({ baseUrl: fixture.url, credentials: { apiKey: 'sk_wrong' } });
    await expect(wrong.account()).rejects.toMatchObject({ name: 'ApiError', status: 401 });
  });

  it('answers a wrong key as an ApiError 401', async () => {
    const api = createApiClient({ baseUrl: fixture.url, credentials: { apiKey: 'sk_wrong' } });
    await expect(api.listRoutes()).rejects.toMatchObject({ name: 'ApiError', status: 401 });
  });

  it('creates, updates with the revision, binds and reads back a route; a stale revision is a 409', async () => {
    const api = createApiClient({ baseUrl: fixture.url, credentials: { apiKey: API_KEY } });
    const created = await api.createRoute({
      name: 'Chat then SMS',
      start: 'chat',
      steps: [
        { id: 'chat', channel: 'chatapp', position: { x: 0, y: 0 } },
        { id: 'sms', channel: 'sms', position: { x: 0, y: 140 } },
      ],
      edges: [{ from: 'chat', to: 'sms', on: 'undeliverable' }],
    });
    expect(created).toMatchObject({ revision: 1, builtin: false, steps: [{ position: { x: 0, y: 0 } }, {}] });
    const updated = await api.updateRoute(created.id, { ...created, name: 'Renamed' }, 1);
    expect(updated.revision).toBe(2);
    const stale = await api.updateRoute(created.id, created, 1).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(ApiError);
    expect(stale).toMatchObject({ status: 409 });

    expect(await api.bindRoute(created.id, 'Promo')).toEqual({ alphaName: 'Promo', routeId: created.id });
    expect(await api.bindRoute(created.id, null)).toEqual({ alphaName: null, routeId: created.id });
    expect(await api.listBindings()).toEqual(
      expect.arrayContaining([
        { alphaName: 'Promo', routeId: created.id },
        { alphaName: null, routeId: created.id },
      ]),
    );
    expect((await api.getRoute(created.id)).name).toBe('Renamed');
    // The revision a message ran on stays readable.
    expect(await api.getRoute(created.id, 1)).toMatchObject({ name: 'Chat then SMS', revision: 1, builtin: false });
    await expect(api.getRoute(created.id, 9)).rejects.toMatchObject({ status: 404 });
    await expect(api.getRoute('default', 2)).rejects.toMatchObject({ status: 404 });
    expect(await api.getRoute('default', 1)).toMatchObject({ builtin: true });
  });

  it('reports validation errors with their details', async () => {
    const api = createApiClient({ baseUrl: fixture.url, credentials: { apiKey: API_KEY } });
    const error = await api
      .createRoute({ name: 'Bad', start: 'nope', steps: [{ id: 'a', channel: 'sms' }], edges: [] })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      status: 400,
      code: 'validation_failed',
      details: expect.arrayContaining([expect.objectContaining({ path: 'start' })]),
    });
  });

  it('sends a cascade to a simulator test number and reads its status by GUID and by trackinId', async () => {
    const api = createApiClient({ baseUrl: fixture.url, credentials: { apiKey: API_KEY } });
    const [accepted] = await api.sendCascade({ toPhone: '99912345600', fromName: 'Acme', text: 'hi', id: 'client-42' });
    const byGuid = await until(
      () => api.cascadeStatus(accepted!.messageId),
      (s) => s.status === 'delivered',
    );
    expect(byGuid).toMatchObject({ trackinId: 'client-42', status: 'delivered', route: expect.stringMatching(/@\d+$/) });
    expect((await api.cascadeStatus('client-42')).messageId).toBe(accepted!.messageId);
    const stats = await api.routeStats(byGuid.route!.split('@')[0]!, { since: new Date(Date.now() - 60_000).toISOString() });
    expect(stats).toMatchObject({
      route: byGuid.route,
      cascades: 1,
      byStatus: { delivered: 1 },
      steps: [{ id: 'chat', reached: 1, delivered: 1 }, { reached: 0 }],
    });
  });

  it('shows the details of a refused request, not only its message (a foreign alpha-name showed only "invalid")', async () => {
    const api = createApiClient({ baseUrl: fixture.url, credentials: { apiKey: API_KEY } });
    const error = await api.sendCascade({ toPhone: '99912345600', fromName: 'NotMine', text: 'hi' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, details: [expect.objectContaining({ path: '[0].fromName' })] });
    expect(describeError(error)).toMatch(/^The cascade request is invalid: \[0\]\.fromName: alpha-name "NotMine" is not/);
    expect(describeError(new ApiError(404, 'not_found', 'No such route'))).toBe('No such route');
    expect(describeError(new Error('offline'))).toBe('offline');
  });
});
