import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSimulator } from '@spillway/channels';
import { createNodeHasher, createSpillway, toNodeHandler } from '@spillway/http';
import type { Spillway, SpillwayOptions } from '@spillway/http';
import { createSqliteStorage } from '@spillway/sqlite';
import { until } from '../support/server-fixture.ts';

// The short links in a sent text must name where the link is served: an embedded Spillway without
// `publicUrl` sent http://127.0.0.1:8080/s/<code> from an app on port 3000 under /spillway, and a
// text sent to a phone can never be corrected.

const auth = `Basic ${Buffer.from('shop:shop-password').toString('base64')}`;
const running: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const close of running.splice(0).reverse()) await close();
});

/** A started Spillway on in-memory SQLite with the simulator, the account `shop` and its alpha-name `Shop`. */
async function shopSpillway(options: Partial<SpillwayOptions> = {}) {
  const simulator = createSimulator({ latencyMs: 5 });
  const warnings: string[] = [];
  const spillway = createSpillway({
    storage: createSqliteStorage(),
    channels: [simulator],
    hasher: createNodeHasher({ N: 2 ** 12 }),
    logger: { info: () => {}, warn: (message: string) => warnings.push(message), error: () => {} },
    basePath: '/spillway',
    ...options,
  });
  running.push(() => spillway.stop());
  await spillway.start();
  const account = await spillway.engine.accounts.ensure({ login: 'shop', password: 'shop-password', balance: 10 });
  await spillway.engine.accounts.approveAlphaName(account.id, 'Shop');
  return { spillway, simulator, warnings };
}

/** A host's own Node server with Spillway mounted at its basePath (`toNodeHandler`), as an express app would. */
async function hostOf(spillway: Spillway): Promise<string> {
  const handler = toNodeHandler(spillway);
  const host = createServer((req, res) => void handler(req, res, () => res.writeHead(200).end('host')));
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  running.push(() => new Promise<void>((resolve) => host.close(() => resolve())));
  return `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
}

/** Sends a cascade whose text holds `%short_url=offer%` through `api` (the API's origin and prefix). */
function sendWithShortLink(api: string, id: string) {
  return fetch(`${api}/api/CascadeMessage/send_message/async`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify([
      {
        id,
        fromName: 'Shop',
        toPhone: '99900000000',
        text: 'Your offer: %short_url=offer%',
        variables: [{ id: 'offer', value: 'https://shop.example/offer/42' }],
      },
    ]),
  });
}

/** The link in the first text the simulator was handed for the cascade `id`. */
async function sentLink(spillway: Spillway, simulator: ReturnType<typeof createSimulator>, id: string): Promise<string> {
  const account = await spillway.engine.accounts.getByLogin('shop');
  const stored = await spillway.storage.getMessageByTrackinId(account!.id, id);
  const sent = await until(
    async () => simulator.sent.find((attempt) => attempt.messageId === stored?.id),
    (attempt) => attempt !== undefined,
  );
  const link = /Your offer: (\S+)$/.exec(sent?.text ?? '')?.[1];
  expect(link, sent?.text).toBeDefined();
  return link!;
}

/** Sends a cascade with a short link through `api`; the link in the sent text names `api` and redirects (302) there to the offer. */
async function expectLinkResolvesAt(api: string, spillway: Spillway, simulator: ReturnType<typeof createSimulator>, id: string) {
  const res = await sendWithShortLink(api, id);
  expect(res.status, await res.clone().text()).toBe(200);
  const link = await sentLink(spillway, simulator, id);
  expect(link).toMatch(new RegExp(`^${api}/s/[A-Za-z0-9]+$`));
  const followed = await fetch(link, { redirect: 'manual' });
  expect(followed.status).toBe(302);
  expect(followed.headers.get('location')).toBe('https://shop.example/offer/42');
}

describe('short links of an embedded Spillway', () => {
  it('name the port and basePath it listens on when no publicUrl is given, and resolve there (302)', async () => {
    const { spillway, simulator } = await shopSpillway();
    const server = await spillway.listen({ port: 0 });
    const api = `http://127.0.0.1:${server.port}/spillway`;
    await expectLinkResolvesAt(api, spillway, simulator, 'listen-1');
  });

  it("mounted in a host's server without publicUrl, refuses a cascade with a short link (501 naming publicUrl) and warns once", async () => {
    const { spillway, simulator, warnings } = await shopSpillway();
    const api = `${await hostOf(spillway)}/spillway`;
    for (const id of ['mounted-1', 'mounted-2']) {
      const res = await sendWithShortLink(api, id);
      expect(res.status).toBe(501);
      expect(await res.json()).toMatchObject({ error: 'not_configured', message: expect.stringContaining('publicUrl') });
    }
    expect(warnings.filter((w) => w.includes('publicUrl'))).toHaveLength(1);
    // Nothing was stored or sent; a cascade without a short link is taken as before.
    expect(simulator.sent).toEqual([]);
    const plain = await fetch(`${api}/api/CascadeMessage/send_message/async`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify([{ fromName: 'Shop', toPhone: '99900000000', text: 'No link here' }]),
    });
    expect(plain.status, await plain.clone().text()).toBe(200);
  });

  it("mounted in a host's server with publicUrl, names it and resolves there (302)", async () => {
    let api = '';
    const { spillway, simulator } = await shopSpillway({ publicUrl: () => api });
    api = `${await hostOf(spillway)}/spillway`;
    await expectLinkResolvesAt(api, spillway, simulator, 'given-1');
  });
});
