import { createShopApp } from './app.ts';

const port = Number(process.env['PORT'] ?? 3000);
const { app, close } = await createShopApp({ filename: process.env['SPILLWAY_DB'] ?? ':memory:' });
const server = app.listen(port, () => {
  console.log(`shop on http://127.0.0.1:${port} (Spillway under /spillway, API reference at /spillway/docs; login shop / shop-password)`);
});
process.once('SIGTERM', () => server.close(() => void close()));
process.once('SIGINT', () => server.close(() => void close()));
