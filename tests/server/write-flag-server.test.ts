import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine } from '@spillway/core';
import { createNodeHasher } from '@spillway/http';
import { createServer, readConfig } from '@spillway/server';
import { createSqliteStorage } from '@spillway/sqlite';
import { createWriteFlag } from '../../apps/server/src/write-flag.ts';

// The workers' thread of a reference server on a SQLite file is a server made with the HTTP
// thread's write flag (`writeFlag`): its commits wait for a running ingest, and meanwhile its
// rounds read the hand-overs their next round takes (the workers' engine's `writerBusy`). The
// engine's own tests check the read ahead; this one checks that the server wires the flag to it.

const dir = mkdtempSync(join(tmpdir(), 'spillway-write-flag-server-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The engine's batch size (`EngineOptions.batchSize`, which the server leaves at its default). */
const BATCH = 500;

describe("the workers' server of a SQLite file made with the HTTP thread's write flag", () => {
  it('reads the next hand-overs while an ingest holds the write lock, and sends every message once', async () => {
    const db = join(dir, 'ahead.db');
    const workerId = 'workers-thread';
    const flag = createWriteFlag();
    const server = await createServer(
      readConfig({
        SPILLWAY_DB: db,
        PORT: '0',
        SPILLWAY_LOG_LEVEL: 'silent',
        SPILLWAY_ROLE: 'worker',
        SPILLWAY_WORKER_THREAD: 'false',
        SPILLWAY_SIMULATOR_LATENCY_MS: '0',
        SPILLWAY_BOOTSTRAP_LOGIN: 'shop',
        SPILLWAY_BOOTSTRAP_PASSWORD: 'shop-password',
        SPILLWAY_BOOTSTRAP_ALPHA_NAMES: 'Shop',
        SPILLWAY_BOOTSTRAP_BALANCE: '1000',
      }),
      { designerDir: false, workerId, metrics: false, writeFlag: flag.buffer },
    );
    // The HTTP thread's ingests, as another engine on the same file handing over to the workers.
    const api = createSqliteStorage({ filename: db });
    try {
      const reads: Array<{ ids: number; ahead: boolean }> = [];
      const take = server.storage.takeHandedOver.bind(server.storage);
      server.storage.takeHandedOver = async (ids, owner, now) => {
        // A round reads the messages leased to it at the round's time; a read ahead, those whose
        // lease holds past a later time.
        reads.push({ ids: ids.length, ahead: now > Date.now() });
        return take(ids, owner, now);
      };
      const engine = createEngine({
        storage: api,
        channels: [],
        hasher: createNodeHasher({ N: 2 ** 12 }),
        worker: false,
        handOverTo: workerId,
      });
      const account = (await engine.accounts.getByLogin('shop'))!;
      const n = 2 * BATCH + 200;
      const { messages } = await engine.messages.send(account.id, {
        messages: Array.from({ length: n }, (_, i) => ({
          from: 'Shop',
          to: `9990${String(i).padStart(5, '0')}00`,
          text: 'hi',
          type: 'sms',
        })),
      });
      // An ingest holds the lock from here on: every commit of the workers finds it raised.
      new Int32Array(flag.buffer)[0] = 1;
      server.engine.handOver(messages.map((m) => m.messageId));
      await server.engine.drain();
      // The first round took a batch and sent it; the second, committing the first's results,
      // read the third batch ahead, which no round then read again.
      expect(reads.filter((r) => r.ahead).map((r) => r.ids)).toEqual([200]);
      expect(reads.reduce((sum, r) => sum + r.ids, 0)).toBe(n);
      const statuses = await Promise.all(messages.map(async (m) => (await api.getMessage(m.messageId))?.status));
      expect(new Set(statuses)).toEqual(new Set(['delivered']));
    } finally {
      new Int32Array(flag.buffer)[0] = 0;
      await server.close();
      await api.close();
    }
  }, 60_000);
});
