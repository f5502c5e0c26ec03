import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator } from '@spillway/channels';
import { createSpillway, serve } from '@spillway/http';
import type { RunningServer, Spillway } from '@spillway/http';
import { createSqliteStorage } from '@spillway/sqlite';

// `HttpOptions.liveWorkers`: `/health` answers the live workers as last counted, the same from the
// direct route (which answers `GET /health` without Hono) and from the app (`HEAD`, a host's own
// server without the direct routes). The reference server counts them (tests/server/live-workers.test.ts).

const silent = { info: () => {}, warn: () => {}, error: () => {} };
let counted: number | undefined;
let spillway: Spillway;
let direct: RunningServer;
let app: RunningServer;
beforeAll(async () => {
  spillway = createSpillway({
    storage: createSqliteStorage(),
    channels: [createSimulator({ latencyMs: 0 })],
    workers: false,
    logger: silent,
    http: { liveWorkers: () => counted },
  });
  await spillway.start();
  direct = await serve({ fetch: spillway.fetch, direct: spillway.direct, port: 0 });
  app = await serve({ fetch: spillway.fetch, port: 0 });
});
afterAll(async () => {
  await Promise.all([direct.close(), app.close()]);
  await spillway.stop();
});

/** `/health` from the direct route and from the app. */
const health = () => Promise.all([direct, app].map(async (server) => (await fetch(`http://127.0.0.1:${server.port}/health`)).json()));

describe('/health with the live workers counted', () => {
  it('answers the count kept, the same from the direct route and the app, and leaves it out before the first count', async () => {
    expect(await health()).toEqual([{ status: 'ok' }, { status: 'ok' }]);
    counted = 0;
    expect(await health()).toEqual([
      { status: 'ok', workers: 0 },
      { status: 'ok', workers: 0 },
    ]);
    counted = 3;
    expect(await health()).toEqual([
      { status: 'ok', workers: 3 },
      { status: 'ok', workers: 3 },
    ]);
  });
});
