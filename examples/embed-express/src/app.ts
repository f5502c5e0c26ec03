import express from 'express';
import { createEngine } from '@spillway/core';
import type { Engine } from '@spillway/core';
import { createSimulator } from '@spillway/channels';
import { createHttpApp, createNodeHasher, createNodeListener } from '@spillway/http';
import { createSqliteStorage } from '@spillway/sqlite';

/**
 * An express shop that embeds Spillway: the whole messaging API is mounted under `/spillway`, and
 * the shop's own route sends an order confirmation through the engine directly.
 */
export async function createShopApp(options: { filename?: string } = {}) {
  const storage = createSqliteStorage({ filename: options.filename ?? ':memory:' });
  await storage.migrate();
  const engine: Engine = createEngine({
    storage,
    channels: [createSimulator({ latencyMs: 50 })],
    hasher: createNodeHasher(),
  });
  const shop = await engine.accounts.ensure({ login: 'shop', password: 'shop-password', balance: 50 });
  await engine.accounts.approveAlphaName(shop.id, 'MyShop');

  const app = express();
  // Spillway's HTTP API, as a Node request listener over its fetch handler.
  app.use('/spillway', createNodeListener(createHttpApp({ engine }).fetch));

  app.post('/orders/:orderId/confirm', express.json(), async (req, res, next) => {
    try {
      const phone = String((req.body as { phone?: unknown }).phone ?? '');
      const sent = await engine.messages.send(shop.id, {
        messages: [
          {
            from: 'MyShop',
            to: phone,
            type: 'chatapp_trans',
            text: `Order ${req.params.orderId} is confirmed.`,
            customerMessageId: `order-${req.params.orderId}`,
            fallbacks: [{ from: 'MyShop', to: phone, type: 'sms', text: `Order ${req.params.orderId} is confirmed.` }],
          },
        ],
      });
      res.json({ messageId: sent.messages[0]?.messageId });
    } catch (error) {
      next(error);
    }
  });
  app.use((error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    const status = (error as { status?: number }).status ?? 500;
    res.status(status).json({ error: (error as { code?: string }).code ?? 'internal', message: String((error as Error).message) });
  });

  engine.start();
  return {
    app,
    engine,
    async close() {
      await engine.stop();
      await storage.close();
    },
  };
}
