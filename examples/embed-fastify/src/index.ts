import { createShopApp } from './app.ts';

const port = Number(process.env['PORT'] ?? 3000);
const { app } = await createShopApp({ filename: process.env['SPILLWAY_DB'] ?? ':memory:' });
await app.listen({ port, host: '127.0.0.1' });
console.log(`shop on http://127.0.0.1:${port} (Spillway under /spillway, API reference at /spillway/docs; login shop / shop-password)`);
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void app.close());
