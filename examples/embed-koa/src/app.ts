import type { Server } from 'node:http';
import Koa from 'koa';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import { createSimulator } from '@spillway/channels';
import { createSpillway, toKoaMiddleware } from '@spillway/http';
import { createSqliteStorage } from '@spillway/sqlite';

/**
 * A Koa shop that embeds Spillway under `/spillway`: its middleware comes before the body parser
 * (Spillway reads the request body itself) and passes every other path on to the shop's router.
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

  const router = new Router();
  router.post('/orders/:orderId/confirm', async (ctx) => {
    const phone = String((ctx.request.body as { phone?: unknown } | undefined)?.phone ?? '');
    const sent = await engine.messages.send(shop.id, {
      messages: [{ from: 'MyShop', to: phone, type: 'sms', text: `Order ${ctx.params['orderId']} is confirmed.` }],
    });
    ctx.body = { messageId: sent.messages[0]?.messageId };
  });

  const app = new Koa();
  app.use(toKoaMiddleware(spillway));
  app.use(bodyParser());
  app.use(router.routes());

  return {
    app,
    engine,
    spillway,
    /** Listens on `port` (0 picks one); `close()` stops the server, then Spillway. */
    async listen(port: number): Promise<{ server: Server; port: number; close(): Promise<void> }> {
      const server = app.listen(port, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      const address = server.address();
      return {
        server,
        port: typeof address === 'object' && address ? address.port : port,
        close: async () => {
          await new Promise((resolve) => server.close(resolve));
          await spillway.stop();
        },
      };
    },
  };
}
