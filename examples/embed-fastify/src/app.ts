import Fastify from 'fastify';
import { createSimulator } from '@spillway/channels';
import { createSpillway, toFastifyPlugin } from '@spillway/http';
import { createSqliteStorage } from '@spillway/sqlite';

/**
 * A Fastify shop that embeds Spillway under `/spillway`. The plugin runs in its own encapsulated
 * context with a body parser that leaves the request body unread, so Spillway reads it itself;
 * the shop's own routes keep Fastify's JSON parsing.
 */
export async function createShopApp(options: { filename?: string } = {}) {
  const spillway = createSpillway({
    storage: createSqliteStorage({ filename: options.filename ?? ':memory:' }),
    channels: [createSimulator({ latencyMs: 50 })],
    basePath: '/spillway',
  });
  await spillway.start();
  const { engine } = spillway;
  const shop = await engine.accounts.ensure({ login: 'shop', password: 'shop-password', balance: 50 });
  await engine.accounts.approveAlphaName(shop.id, 'MyShop');

  const app = Fastify();
  await app.register(toFastifyPlugin(spillway));

  app.post<{ Params: { orderId: string }; Body: { phone?: string } }>('/orders/:orderId/confirm', async (req) => {
    const phone = String(req.body.phone ?? '');
    const sent = await engine.messages.send(shop.id, {
      messages: [{ from: 'MyShop', to: phone, type: 'sms', text: `Order ${req.params.orderId} is confirmed.` }],
    });
    return { messageId: sent.messages[0]?.messageId };
  });
  // Spillway stops with the app: workers finish the round in flight, the database closes.
  app.addHook('onClose', async () => spillway.stop());
  return { app, engine, spillway };
}
