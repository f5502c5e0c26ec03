import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hasReachabilityStorage } from '@spillway/core/storage';
import { createServer, readConfig } from '@spillway/server';
import { cli } from '../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'spillway-cli-reach-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('spillway reachability', () => {
  it('shows what the memory keeps about a number and clears it, one channel or all', async () => {
    const db = join(dir, 'reach.db');
    const server = await createServer(readConfig({ SPILLWAY_DB: db, PORT: '0', SPILLWAY_LOG_LEVEL: 'silent' }), { demoAccount: false });
    try {
      const account = await server.engine.accounts.create({ login: 'shop', password: 'shop-password' });
      if (!hasReachabilityStorage(server.storage)) throw new Error('the storage keeps no reachability memory');
      const now = Date.now();
      const entry = {
        accountId: account.id,
        phoneNumber: '4915100000001',
        reason: 'bot was blocked by the user',
        driver: 'telegram',
        messageId: null,
        at: now,
        expiresAt: now + 3_600_000,
      };
      await server.storage.rememberUnreachable([
        { ...entry, channel: 'messenger' },
        { ...entry, channel: 'chatapp_bot', reason: 'receiverNotSubscribed', driver: 'viber' },
      ]);
    } finally {
      await server.close();
    }

    const shown = await cli(db, 'reachability', 'show', '--login', 'shop', '--phone', '+4915100000001');
    expect(shown.phoneNumber).toBe('4915100000001');
    expect(shown.entries.map((e: any) => [e.channel, e.reason])).toEqual([
      ['chatapp_bot', 'receiverNotSubscribed'],
      ['messenger', 'bot was blocked by the user'],
    ]);
    expect(await cli(db, 'reachability', 'clear', '--login', 'shop', '--phone', '4915100000001', '--channel', 'messenger')).toEqual({
      phoneNumber: '4915100000001',
      cleared: 1,
    });
    expect(await cli(db, 'reachability', 'clear', '--login', 'shop', '--phone', '4915100000001')).toEqual({
      phoneNumber: '4915100000001',
      cleared: 1,
    });
    expect((await cli(db, 'reachability', 'show', '--login', 'shop', '--phone', '4915100000001')).entries).toEqual([]);
    await expect(cli(db, 'reachability', 'show', '--login', 'shop')).rejects.toThrow(/--phone is required/);
    await expect(cli(db, 'reachability', 'clear', '--login', 'shop', '--phone', '4915100000001', '--channel', 'fax')).rejects.toThrow(
      /unknown channel/,
    );
  }, 60_000);
});
