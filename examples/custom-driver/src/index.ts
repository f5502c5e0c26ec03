import { startFakeBeacon } from './fake-beacon.ts';
import { startShop } from './shop.ts';

// A demo: the stand-in Beacon cloud, and Spillway sending SMS through the Beacon driver.
const beacon = await startFakeBeacon({ apiToken: 'demo-api-token', callbackToken: 'demo-callback-token', reportAfterMs: 500 });
const { spillway, url } = await startShop({
  beaconUrl: beacon.url,
  apiToken: 'demo-api-token',
  callbackToken: 'demo-callback-token',
  port: Number(process.env['PORT'] ?? 3000),
});
console.log(`Spillway on ${url} sends SMS through Beacon at ${beacon.url} (login shop / shop-password)`);
console.log(
  `try: curl -u shop:shop-password -H 'content-type: application/json' -d '{"messages":[{"from":"MyShop","to":"447700900120","type":"sms","text":"hi"}]}' ${url}/bat/messagelist`,
);
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void spillway.stop().then(() => beacon.close()));
