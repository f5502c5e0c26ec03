import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kannelMoUrl } from '@spillway/channels';
import { createSqliteStorage } from '@spillway/sqlite';
import type { SqliteStorage } from '@spillway/sqlite';
import { API_KEY, LOGIN, startServer, until } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

// SPILLWAY_HTTP_THREADS=2: two threads accept from one port, each with its app and database
// connection. Connections are spread by asking clients to reconnect (`Connection: close`):
// reading ones evenly, writing ones onto the main thread. Limits and metrics are the server's, not
// a thread's.

const dir = mkdtempSync(join(tmpdir(), 'spillway-http-threads-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Answer {
  status: number;
  closed: boolean;
  body: string;
  retryAfter: string | undefined;
}

/** One kept-alive connection at a time (a new one after the server closed the last). */
class Connection {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  constructor(private readonly url: string) {}

  send(method: string, path: string, options: { json?: unknown; auth?: boolean; headers?: Record<string, string> } = {}): Promise<Answer> {
    const body = options.json === undefined ? undefined : JSON.stringify(options.json);
    const headers: Record<string, string> = { ...options.headers };
    if (options.auth !== false) headers['x-authorization-key'] = API_KEY;
    if (body !== undefined)
      Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
    return new Promise((resolve, reject) => {
      const req = request(`${this.url}${path}`, { method, headers, agent: this.agent }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            closed: res.headers.connection === 'close',
            body: text,
            retryAfter: res.headers['retry-after'],
          }),
        );
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** `spillway_http_connections` per thread, read over a connection of its own. */
async function openConnections(f: RunningFixture): Promise<number[]> {
  const text = await (await f.call('/metrics', { auth: 'none', headers: { connection: 'close' } })).text();
  return [0, 1].map((thread) => Number(new RegExp(`spillway_http_connections\\{thread="${thread}"\\} (\\d+)`).exec(text)?.[1] ?? NaN));
}

/**
 * Eight connections reading `/health` until each thread holds at least three of them and at most
 * five: the kernel gave the burst of new connections to either thread, and the reading ones are
 * spread by reconnections. The gauge counts the connection that reads it too, on one side or the
 * other, so each side must count four of the nine (a count of three could be two of the eight and
 * the gauge's, leaving six on the other side).
 */
async function spread(f: RunningFixture, connections: Connection[]): Promise<number> {
  let reads = 0;
  const held = await until(
    async () => {
      await Promise.all(connections.map((c) => c.send('GET', '/health', { auth: false })));
      reads += connections.length;
      return openConnections(f);
    },
    (open) => open.every((n) => n >= 4),
  );
  expect(
    held.every((n) => n >= 4),
    `open connections per thread: ${held.join(', ')}`,
  ).toBe(true);
  return reads;
}

/**
 * A server with two HTTP threads on a new file (`env` beside), and eight kept-alive connections
 * spread over both threads ({@link spread}), for `run` (with the number of `/health` reads the
 * spreading took); all closed after it.
 */
async function withTwoThreads(
  name: string,
  env: Record<string, string>,
  run: (f: RunningFixture, connections: Connection[], reads: number) => Promise<void>,
): Promise<void> {
  const f = await startServer({ SPILLWAY_DB: join(dir, `${name}.db`), SPILLWAY_HTTP_THREADS: '2', ...env });
  const connections = Array.from({ length: 8 }, () => new Connection(f.url));
  try {
    await run(f, connections, await spread(f, connections));
  } finally {
    connections.forEach((c) => c.close());
    await f.close();
  }
}

describe('a server with two HTTP threads', () => {
  it(
    'spreads reading connections over both threads and counts every thread’s requests on /metrics',
    () =>
      withTwoThreads('spread', {}, async (f, _connections, reads) => {
        // Counted by the thread that answered, summed by the main thread (every 200 ms, or when a scrape reaches another thread).
        const counted = await until(
          async () => {
            const text = await (await f.call('/metrics', { auth: 'none' })).text();
            return Number(/spillway_http_requests_total\{method="GET",route="\/health",status="200"\} (\d+)/.exec(text)?.[1] ?? 0);
          },
          (n) => n === reads,
        );
        expect(counted).toBe(reads);
      }),
    60_000,
  );

  it(
    'shares the rate limits of an account between the threads',
    () =>
      // 6 requests of the data category, then one a second.
      withTwoThreads('limits', { SPILLWAY_RATE_DATA: '1/6' }, async (_f, connections) => {
        // 24 balance reads, three on each connection: each thread takes at least nine. With limits of
        // their own, both threads would let six through.
        const answers: Answer[] = [];
        for (let round = 0; round < 3; round++) answers.push(...(await Promise.all(connections.map((c) => c.send('GET', '/bat/balance')))));
        const allowed = answers.filter((a) => a.status === 200).length;
        expect(answers.filter((a) => a.status !== 200 && a.status !== 429)).toEqual([]);
        // Six, and one more if a second went by meanwhile.
        expect(allowed).toBeGreaterThanOrEqual(6);
        expect(allowed).toBeLessThanOrEqual(7);
      }),
    60_000,
  );

  it(
    'moves writing connections onto the main thread, and delivers what either thread accepted',
    () =>
      withTwoThreads('writes', {}, async (f, connections) => {
        const ids: number[] = [];
        const send = async (c: Connection, i: number) => {
          const answer = await c.send('POST', '/bat/messagelist', {
            json: { messages: [{ from: 'Acme', to: `99912345${String(i % 100).padStart(2, '0')}00`, type: 'sms', text: `write ${i}` }] },
          });
          expect(answer.status).toBe(200);
          ids.push((JSON.parse(answer.body) as { messages: Array<{ messageId: number }> }).messages[0]!.messageId);
          return answer;
        };
        // Both threads held reading connections: the other thread has their first write answered by
        // the main thread (the one writer of acceptances), answers it the same, and closes them.
        const refused = await Promise.all(
          connections.map((c) =>
            c.send('POST', '/bat/messagelist', { json: { messages: [{ from: 'Nobody', to: '9991234500', type: 'sms', text: 'x' }] } }),
          ),
        );
        expect(new Set(refused.map((a) => `${a.status} ${a.body}`)).size).toBe(1);
        expect(refused[0]!.status).toBe(400);
        expect(JSON.parse(refused[0]!.body)).toMatchObject({ error: 'validation_failed', details: [{ path: 'messages[0].from' }] });
        const closed = refused.filter((a) => a.closed).length;
        expect(closed).toBeGreaterThanOrEqual(3);
        expect(closed).toBeLessThanOrEqual(5);
        await Promise.all(connections.map(send));
        // Reconnected, they land on either thread, until every one is on the main thread.
        let sent = connections.length;
        const settled = await until(
          async () => {
            const answers = await Promise.all(connections.map((c, i) => send(c, sent + i)));
            sent += connections.length;
            return answers.filter((a) => a.closed).length;
          },
          (n) => n === 0,
        );
        expect(settled).toBe(0);
        // Connections that read and write stay on the main thread: their reads do not move them back.
        for (let round = 0; round < 5; round++) {
          const reads = await Promise.all(connections.map((c) => c.send('GET', '/bat/balance')));
          expect(reads.filter((a) => a.closed || a.status !== 200)).toEqual([]);
          const writes = await Promise.all(connections.map((c, i) => send(c, sent + i)));
          sent += connections.length;
          expect(writes.filter((a) => a.closed)).toEqual([]);
        }
        // Messages accepted by either thread go to the workers' thread at once (handed over, not claimed 60 s later).
        for (const id of ids) {
          const status = await until(
            async () => ((await (await f.call(`/bat/message/${id}`)).json()) as { deliverystatus: string }).deliverystatus,
            (s) => s === 'delivered',
          );
          expect(status, `message ${id}`).toBe('delivered');
        }
      }),
    60_000,
  );

  it(
    'counts failed logins on either thread together: the sixth failure locks the login on both',
    () =>
      withTwoThreads('logins', {}, async (_f, connections) => {
        // One wrong password after the other, each on the next connection (both threads hold at
        // least three). Five failures are free, the sixth locks the login for a second: the seventh
        // and eighth are refused before any hashing. With a guard of its own, each thread would
        // have seen four failures at most, and all eight would be 401.
        const wrong = { authorization: `Basic ${Buffer.from(`${LOGIN}:not-the-password`).toString('base64')}` };
        const answers: Answer[] = [];
        for (const c of connections) answers.push(await c.send('GET', '/bat/balance', { auth: false, headers: wrong }));
        expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 401, 401, 401, 429, 429]);
        expect(answers[6]!.retryAfter).toBe('1');
        expect(JSON.parse(answers[6]!.body)).toMatchObject({ error: 'rate_limited' });
      }),
    60_000,
  );

  it(
    'answers 503 with Retry-After on either thread while another process holds the write lock, and takes the retries',
    () =>
      withTwoThreads('busy', { SPILLWAY_DB_BUSY_TIMEOUT_MS: '100' }, async (f, connections) => {
        const send = (c: Connection, i: number) =>
          c.send('POST', '/bat/messagelist', {
            json: { messages: [{ from: 'Acme', to: `99912345${String(i).padStart(2, '0')}00`, type: 'sms', text: `busy ${i}` }] },
          });
        // Each thread's connection waits SPILLWAY_DB_BUSY_TIMEOUT_MS for the lock (5 s by default).
        expect((f.server.storage as SqliteStorage).db.pragma('busy_timeout', { simple: true })).toBe(100);
        const other = createSqliteStorage({ filename: join(dir, 'busy.db') });
        const count = () => (other.db.prepare(`SELECT count(*) AS n FROM messages`).get() as { n: number }).n;
        try {
          other.db.exec('BEGIN IMMEDIATE');
          // The sends reaching the other thread are answered by the main thread (the one writer),
          // whose answer crosses back as text, its Retry-After with it; those connections are closed.
          const busy = await Promise.all(connections.map(send));
          expect(busy.map((a) => [a.status, a.retryAfter])).toEqual(connections.map(() => [503, '1']));
          for (const a of busy) expect(JSON.parse(a.body)).toMatchObject({ error: 'unavailable', status: 503 });
          expect(busy.filter((a) => a.closed).length).toBeGreaterThanOrEqual(3);
          other.db.exec('ROLLBACK');
          expect(count()).toBe(0);
          expect((await f.call('/health')).status).toBe(200);
          const retried = await Promise.all(connections.map(send));
          expect(retried.map((a) => a.status)).toEqual(connections.map(() => 200));
          expect(count()).toBe(connections.length);
        } finally {
          if (other.db.inTransaction) other.db.exec('ROLLBACK');
          await other.close();
        }
      }),
    60_000,
  );

  it('counts on /metrics the incoming messages refused on either thread (a Kannel /mo no account owns)', async () => {
    const callbackSecret = 'kannel-mo-secret-0123456789';
    const config = join(dir, 'kannel.json');
    writeFileSync(
      config,
      JSON.stringify({
        drivers: {
          kannel: {
            type: 'kannel',
            sendsmsUrl: 'http://127.0.0.1:9/cgi-bin/sendsms',
            username: 'spillway',
            password: 'unused',
            callbackSecret,
          },
        },
        channels: { sms: ['kannel'] },
      }),
    );
    await withTwoThreads('refused-mo', { SPILLWAY_CONFIG: config }, async (f, connections) => {
      const mo = new URL(kannelMoUrl({ callbackBaseUrl: f.url, callbackSecret, password: 'unused' }));
      for (const [name, value] of Object.entries({ from: '4915100000129', to: 'Nobody', text: 'hello?' })) mo.searchParams.set(name, value);
      const path = `${mo.pathname}?${mo.searchParams.toString()}`;
      // One on each connection: both threads take some (spread holds at least three on each).
      const answers = await Promise.all(connections.map((c) => c.send('GET', path, { auth: false })));
      expect(answers.every((a) => a.status >= 400)).toBe(true);
      const counted = await until(
        async () => {
          const text = await (await f.call('/metrics', { auth: 'none' })).text();
          return Number(/spillway_inbound_refused_total\{driver="kannel",reason="no_owner"\} (\d+)/.exec(text)?.[1] ?? 0);
        },
        (n) => n === connections.length,
      );
      expect(counted).toBe(connections.length);
    });
  }, 60_000);

  it('stops every thread: the port refuses connections once closed', async () => {
    let url = '';
    await withTwoThreads('close', {}, async (f) => {
      url = f.url;
    });
    const { port } = new URL(url);
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(false)));
      socket.once('error', () => resolve(true));
    });
    expect(refused).toBe(true);
  }, 60_000);
});
