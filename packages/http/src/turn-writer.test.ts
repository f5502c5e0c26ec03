import { once } from 'node:events';
import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createTurnWriter } from './turn-writer.ts';

/** A response that records when it was ended, and with what. */
function fakeResponse(ended: string[], name: string, fail = false): ServerResponse {
  return {
    end(body: string) {
      if (fail) throw new Error(`${name} is gone`);
      ended.push(`${name}:${body}`);
    },
  } as unknown as ServerResponse;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('createTurnWriter', () => {
  it('ends the answers of a turn together once its callbacks have run, in the order they were answered', async () => {
    const ended: string[] = [];
    const end = createTurnWriter((error) => expect.fail(String(error)));
    end(fakeResponse(ended, 'a'), '1');
    await Promise.resolve();
    end(fakeResponse(ended, 'b'), '2');
    // Still in the turn (its microtasks included): nothing is written yet.
    expect(ended).toEqual([]);
    await nextTurn();
    expect(ended).toEqual(['a:1', 'b:2']);

    // The next turn's answers go out with that turn.
    end(fakeResponse(ended, 'c'), '3');
    expect(ended).toEqual(['a:1', 'b:2']);
    await nextTurn();
    expect(ended).toEqual(['a:1', 'b:2', 'c:3']);
  });

  it('reports a response that cannot be ended and ends the others all the same', async () => {
    const ended: string[] = [];
    const errors: string[] = [];
    const failed: ServerResponse[] = [];
    const end = createTurnWriter((error, res) => {
      errors.push(String(error));
      failed.push(res);
    });
    const gone = fakeResponse(ended, 'gone', true);
    end(fakeResponse(ended, 'a'), '1');
    end(gone, '2');
    end(fakeResponse(ended, 'c'), '3');
    await nextTurn();
    expect(ended).toEqual(['a:1', 'c:3']);
    expect(errors).toEqual(['Error: gone is gone']);
    // The response goes with the error: the log names its request.
    expect(failed).toHaveLength(1);
    expect(failed[0]).toBe(gone);
  });

  it('answers real HTTP requests over their sockets', async () => {
    const end = createTurnWriter((error) => expect.fail(String(error)));
    // Whether each response was already ended when the handler returned (it must not be).
    const endedInHandler: boolean[] = [];
    const server = createServer((req, res) => {
      const text = JSON.stringify({ path: req.url });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      end(res, text);
      endedInHandler.push(res.writableEnded);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      const get = (path: string) =>
        new Promise<string>((resolve, reject) => {
          request({ port, host: '127.0.0.1', path }, (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (body += chunk));
            res.on('end', () => resolve(`${res.statusCode} ${body}`));
          })
            .on('error', reject)
            .end();
        });
      const paths = Array.from({ length: 8 }, (_, i) => `/r${i}`);
      expect(await Promise.all(paths.map(get))).toEqual(paths.map((p) => `200 {"path":"${p}"}`));
      expect(endedInHandler).toEqual(paths.map(() => false));
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
