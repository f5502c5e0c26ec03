import { createShopApp } from './app.ts';

const shop = await createShopApp({ filename: process.env['SPILLWAY_DB'] ?? ':memory:' });
const { port, close } = await shop.listen(Number(process.env['PORT'] ?? 3000));
console.log(`shop on http://127.0.0.1:${port} (Spillway under /spillway, API reference at /spillway/docs; login shop / shop-password)`);
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void close());
