import { afterAll, beforeAll } from 'vitest';
import type { ChannelContext, ChannelDriver } from '@spillway/core';
import { runChannelDriverContract } from '@spillway/core/testing';
import { serve } from '@spillway/http';
import { createBeaconDriver } from '../src/beacon-driver.ts';
import { startFakeBeacon } from '../src/fake-beacon.ts';

// The driver passes the conformance suite of the Channel port, against the stand-in for Beacon's
// cloud; its delivery-report route is served on a real port while a test runs.
let beacon: Awaited<ReturnType<typeof startFakeBeacon>>;
let callbackUrl = 'http://127.0.0.1:9/unserved';
beforeAll(async () => {
  beacon = await startFakeBeacon({ apiToken: 'api-token', callbackToken: 'callback-token' });
});
afterAll(() => beacon.close());

const create = (apiToken = 'api-token'): ChannelDriver =>
  createBeaconDriver({ baseUrl: beacon.url, apiToken, callbackToken: 'callback-token', callbackUrl: () => callbackUrl });

runChannelDriverContract({
  name: 'Beacon SMS (custom driver example)',
  create: () => create(),
  deliverableRecipient: '447700900120',
  time: 'real',
  async serve(driver: ChannelDriver, ctx: ChannelContext) {
    const route = driver.routes![0]!;
    const server = await serve({
      port: 0,
      fetch: (req) =>
        new URL(req.url).pathname === `/channels/${driver.name}${route.path}`
          ? route.handle(req, ctx)
          : new Response(null, { status: 404 }),
    });
    callbackUrl = `http://127.0.0.1:${server.port}/channels/${driver.name}${route.path}`;
    return () => server.close();
  },
  failures: [
    { name: 'Beacon answers 429 with Retry-After', failure: 'throttled', recipient: '447700900129' },
    { name: 'Beacon refuses an invalid number', failure: 'permanent', recipient: '447700900123' },
    { name: 'the number is a landline', failure: 'not_on_channel', recipient: '447700900124' },
    { name: 'Beacon reports the handset unreachable', failure: 'undeliverable', recipient: '447700900127' },
    { name: 'Beacon reports the sender blocked', failure: 'permanent', recipient: '447700900128' },
    { name: 'the API token is wrong', failure: 'permanent', create: () => create('wrong-token') },
  ],
  providerIdempotencyKeys: () => beacon.references,
});
