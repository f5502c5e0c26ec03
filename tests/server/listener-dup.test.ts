import { closeSync, openSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createHttpSharedState } from '@spillway/http';
import { readConfig } from '@spillway/server';
import { connectionCounts } from '../../apps/server/src/connection-balance.ts';
import { startHttpThreads } from '../../apps/server/src/http-threads.ts';
import { duplicateListener } from '../../apps/server/src/listener-dup.ts';

// An extra HTTP thread accepts from the main thread's listening socket through a descriptor of its
// own, so that either server can close without closing the socket, or a reused descriptor number,
// under the other.

const fdOf = (server: Server) => (server as unknown as { _handle: { fd: number } })._handle.fd;
const listen = (server: Server, what: unknown) => new Promise<void>((resolve) => server.listen(what as number, resolve));
const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));
const answeredBy = async (port: number) => (await fetch(`http://127.0.0.1:${port}/`, { headers: { connection: 'close' } })).text();

describe('duplicateListener', () => {
  it('gives a descriptor of its own on the same socket: both servers accept, and either may close first', async () => {
    for (const closingFirst of ['original', 'duplicate'] as const) {
      const original = createServer((_req, res) => res.end('original'));
      await new Promise<void>((resolve) => original.listen(0, '127.0.0.1', resolve));
      const { port } = original.address() as AddressInfo;
      const duplicate = createServer((_req, res) => res.end('duplicate'));
      await listen(duplicate, await duplicateListener(fdOf(original)));
      expect(fdOf(duplicate)).not.toBe(fdOf(original));
      expect((duplicate.address() as AddressInfo).port).toBe(port);

      const served = new Set<string>();
      for (let i = 0; i < 200 && served.size < 2; i++) served.add(await answeredBy(port));
      expect([...served].sort()).toEqual(['duplicate', 'original']);

      const [first, second] = closingFirst === 'original' ? [original, duplicate] : [duplicate, original];
      await close(first);
      // The socket still listens, through the other descriptor only.
      for (let i = 0; i < 5; i++) expect(await answeredBy(port)).toBe(second === original ? 'original' : 'duplicate');
      await close(second);
      await expect(answeredBy(port)).rejects.toThrow();
    }
  }, 30_000);

  it('fails the start of extra HTTP threads given a descriptor that is not a listening socket, with the helper’s reason', async () => {
    const fd = openSync(fileURLToPath(import.meta.url), 'r');
    try {
      const start = startHttpThreads({
        count: 1,
        data: {
          config: readConfig({ SPILLWAY_DB: ':memory:', SPILLWAY_LOG_LEVEL: 'silent' }),
          fd,
          shared: createHttpSharedState(),
          counts: connectionCounts(2),
          handOverTo: undefined,
          designerDir: false,
        },
        registry: undefined,
        onWork: () => {},
        send: () => Promise.reject(new Error('no sends here')),
        logger: { error() {}, warn() {}, info() {} } as unknown as Parameters<typeof startHttpThreads>[0]['logger'],
      });
      // The server catches this, logs it and serves from its main thread alone.
      await expect(start).rejects.toThrow(/the listener helper exited \(1\) before sending the handle: TypeError \[ERR_INVALID_FD_TYPE\]/);
    } finally {
      closeSync(fd);
    }
  }, 30_000);

  it('rejects, without waiting, a descriptor that is not a listening socket (the server then serves from one thread)', async () => {
    const fd = openSync(fileURLToPath(import.meta.url), 'r');
    try {
      await expect(duplicateListener(fd)).rejects.toThrow(
        /^the listener helper exited \(1\) before sending the handle: TypeError \[ERR_INVALID_FD_TYPE\]: Unsupported fd type: FILE$/,
      );
    } finally {
      closeSync(fd);
    }
  });
});
