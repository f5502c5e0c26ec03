import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeBeacon } from '../src/fake-beacon.ts';
import { startShop } from '../src/shop.ts';

let beacon: Awaited<ReturnType<typeof startFakeBeacon>>;
let shop: Awaited<ReturnType<typeof startShop>>;
const auth = `Basic ${Buffer.from('shop:shop-password').toString('base64')}`;

beforeAll(async () => {
  beacon = await startFakeBeacon({ apiToken: 'api-token', callbackToken: 'callback-token' });
  shop = await startShop({ beaconUrl: beacon.url, apiToken: 'api-token', callbackToken: 'callback-token' });
});
afterAll(async () => {
  await shop.spillway.stop();
  await beacon.close();
});

type Status = { deliverystatus: string; extendedStatuses?: { status: string; channel?: string }[] };

async function send(to: string): Promise<number> {
  const res = await fetch(`${shop.url}/bat/messagelist`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ from: 'MyShop', to, type: 'sms', text: `Hello ${to}` }] }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { messages: { messageId: number }[] }).messages[0]!.messageId;
}

async function settled(messageId: number): Promise<Status> {
  let status: Status = { deliverystatus: 'scheduled' };
  for (let i = 0; i < 200 && ['scheduled', 'processing'].includes(status.deliverystatus); i++) {
    await new Promise((r) => setTimeout(r, 20));
    status = (await (await fetch(`${shop.url}/bat/message/${messageId}`, { headers: { authorization: auth } })).json()) as Status;
  }
  return status;
}

describe('sending through the custom Beacon driver', () => {
  it('delivers: Beacon accepts, then its report reaches the driver route and the message is delivered', async () => {
    const id = await send('447700900120');
    const status = await settled(id);
    expect(status.deliverystatus).toBe('delivered');
    expect(status.extendedStatuses?.map((s) => s.status)).toEqual(['Sent', 'Delivered']);
    expect(beacon.accepted.at(-1)).toMatchObject({ to: '447700900120', body: 'Hello 447700900120' });
  });

  it("maps Beacon's failure report to undeliverable, and its refusal of a number to a permanent error", async () => {
    expect((await settled(await send('447700900127'))).deliverystatus).toBe('undeliverable');
    expect((await settled(await send('447700900123'))).deliverystatus).toBe('permanenterror');
  });

  it('refuses a delivery report without the callback token', async () => {
    const res = await fetch(`${shop.url}/channels/beacon/dlr`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'bm_1', state: 'failed', reason: 'blocked' }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'unauthorized' });
  });
});
