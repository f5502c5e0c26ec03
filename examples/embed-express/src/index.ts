import { createShopApp } from './app.ts';

const port = Number(process.env['PORT'] ?? 3000);
// Mounted in express, Spillway cannot know the address phones reach it at: short links in texts
// need it (PUBLIC_URL behind a proxy or a domain).
const publicUrl = process.env['PUBLIC_URL'] ?? `http://127.0.0.1:${port}/spillway`;
const { app, close } = await createShopApp({ filename: process.env['SPILLWAY_DB'] ?? ':memory:', spillway: { publicUrl } });
const server = app.listen(port, () => {
  console.log(`shop on http://127.0.0.1:${port} (Spillway under /spillway, API reference at /spillway/docs; login shop / shop-password)`);
});
process.once('SIGTERM', () => server.close(() => void close()));
process.once('SIGINT', () => server.close(() => void close()));
