import { createShopApp } from './app.ts';

const port = Number(process.env['PORT'] ?? 3000);
const { app } = await createShopApp({ filename: process.env['SPILLWAY_DB'] ?? ':memory:' });
app.listen(port, () => {
  console.log(`shop on http://127.0.0.1:${port} (Spillway under /spillway; login shop / shop-password)`);
});
