import express from 'express';
import { createSimulator } from '@spillway/channels';
import { createSpillway, toNodeHandler } from '@spillway/http';
import type { SpillwayOptions } from '@spillway/http';
import { createSqliteStorage } from '@spillway/sqlite';

/**
 * An express shop that embeds Spillway: the whole messaging API is served under `/spillway`, and
 * the shop's own route sends an order confirmation through the engine directly.
 */
export async function createShopApp(options: { filename?: string; spillway?: Partial<SpillwayOptions> } = {}) {
  // One call: the engine and its workers, webhook delivery, metrics, the chat hub and the HTTP API.
  const spillway = createSpillway({
    storage: createSqliteStorage({ filename: options.filename ?? ':memory:' }),
    channels: [createSimulator({ latencyMs: 50 })],
    basePath: '/spillway',
    ...options.spillway,
  });
  await spillway.start();
  const { engine } = spillway;
  const shop = await engine.accounts.ensure({ login: 'shop', password: 'shop-password', balance: 50 });
  await engine.accounts.approveAlphaName(shop.id, 'MyShop');

  const app = express();
  // Before any body parser: Spillway reads the request body itself. Requests outside
  // /spillway go on to the shop's routes.
  app.use(toNodeHandler(spillway));

  app.post('/orders/:orderId/confirm', express.json(), async (req, res, next) => {
    try {
      const phone = String((req.body as { phone?: unknown }).phone ?? '');
      const text = `Order ${req.params.orderId} is confirmed.`;
      const sent = await engine.messages.send(shop.id, {
        messages: [
          {
            from: 'MyShop',
            to: phone,
            type: 'chatapp_trans',
            text,
            customerMessageId: `order-${req.params.orderId}`,
            fallbacks: [{ from: 'MyShop', to: phone, type: 'sms', text }],
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

  return {
    app,
    engine,
    spillway,
    /** Stops the workers (letting sends in flight finish) and closes the database. */
    close: () => spillway.stop(),
  };
}
