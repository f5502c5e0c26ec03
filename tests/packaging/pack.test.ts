import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The packages as a user gets them: built, packed with `pnpm pack`, installed with npm into an app
// outside the workspace, then run with plain `node` and compiled by the user's own `tsc` (strict,
// NodeNext). Slow (a build, five packs, an npm install): `pnpm test:packaging`, a step of .ci/run.

const root = resolve(import.meta.dirname, '../..');
const PACKAGES = ['core', 'sqlite', 'channels', 'http', 'client'] as const;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
let app: string;

// Without NODE_PATH: pnpm's `.bin` shims (vitest's) set it to the workspace's hoisted packages, and the
// app's `node` then found what the user's app does not have (the optional @scalar/api-reference).
const { NODE_PATH: _workspacePath, ...env } = process.env;

function run(command: string, args: string[], cwd: string): string {
  try {
    return execFileSync(command, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000 });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${e.stdout ?? ''}\n${e.stderr ?? e.message}`);
  }
}

beforeAll(() => {
  app = mkdtempSync(join(tmpdir(), 'spillway-consumer-'));
  const tarballs = join(app, 'tarballs');
  mkdirSync(tarballs);
  run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-b', 'tsconfig.build.json'], root);
  const file: Record<string, string> = {};
  for (const p of PACKAGES) {
    run('npx', ['-y', 'pnpm@10', 'pack', '--pack-destination', tarballs], join(root, 'packages', p));
    const tgz = readdirSync(tarballs).find((f) => f.startsWith(`spillway-${p}-`) && f.endsWith('.tgz'));
    if (!tgz) throw new Error(`no tarball for ${p}`);
    file[`@spillway/${p}`] = `file:tarballs/${tgz}`;
  }
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify(
      {
        name: 'spillway-consumer',
        private: true,
        type: 'module',
        dependencies: file,
        devDependencies: { typescript: '~5.9.3', '@types/node': '^20.19.0' },
        // The packages depend on each other by version (`^0.1.0`), which no registry has: the
        // tarballs stand in for it.
        overrides: file,
      },
      null,
      2,
    ),
  );
  // Without install scripts: better-sqlite3 would download its prebuilt binary from GitHub, which
  // this machine cannot reach. The workspace's binary of the same version and Node ABI stands in
  // for it; with another version, npm builds it from source.
  run(npm, ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], app);
  const installed = JSON.parse(readFileSync(join(app, 'node_modules/better-sqlite3/package.json'), 'utf8')) as { version: string };
  const ours = dirname(createRequire(join(root, 'packages/sqlite/package.json')).resolve('better-sqlite3/package.json'));
  const oursVersion = (JSON.parse(readFileSync(join(ours, 'package.json'), 'utf8')) as { version: string }).version;
  if (installed.version === oursVersion && existsSync(join(ours, 'build/Release/better_sqlite3.node'))) {
    mkdirSync(join(app, 'node_modules/better-sqlite3/build/Release'), { recursive: true });
    copyFileSync(
      join(ours, 'build/Release/better_sqlite3.node'),
      join(app, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'),
    );
  } else {
    run(npm, ['rebuild', 'better-sqlite3', '--build-from-source'], app);
  }
}, 900_000);

afterAll(() => {
  if (app) rmSync(app, { recursive: true, force: true });
});

describe('the packed packages', () => {
  it('ship built JavaScript, declarations, a README and a LICENSE, and no TypeScript sources', () => {
    for (const p of PACKAGES) {
      const dir = join(app, 'node_modules/@spillway', p);
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
      expect(manifest['private']).toBeUndefined();
      expect(manifest['license']).toBe('MIT');
      expect(existsSync(join(dir, 'LICENSE'))).toBe(true);
      expect(existsSync(join(dir, 'README.md'))).toBe(true);
      expect(existsSync(join(dir, 'dist/index.js'))).toBe(true);
      expect(existsSync(join(dir, 'dist/index.d.ts'))).toBe(true);
      expect(existsSync(join(dir, 'src'))).toBe(false);
      // `workspace:` ranges are replaced by real versions in the packed manifest.
      expect(JSON.stringify(manifest)).not.toContain('workspace:');
    }
  });

  it('run in a plain Node ESM app: an engine on SQLite sends a message, delivered, read back over HTTP and with the typed client', () => {
    writeFileSync(
      join(app, 'main.mjs'),
      `import { createEngine, isFinalStatus } from '@spillway/core';
import { createSqliteStorage } from '@spillway/sqlite';
import { createSimulator } from '@spillway/channels';
import { createHttpApp, createNodeHasher, serve } from '@spillway/http';
import { createSpillwayClient } from '@spillway/client';

const storage = createSqliteStorage({ filename: 'consumer.db' });
await storage.migrate();
const engine = createEngine({ storage, channels: [createSimulator({ latencyMs: 5 })], hasher: createNodeHasher() });
const account = await engine.accounts.ensure({ login: 'shop', password: 'shop-password', balance: 10 });
await engine.accounts.approveAlphaName(account.id, 'Shop');
const { key } = await engine.accounts.createKey(account.id);
engine.start();

const sent = await engine.messages.send(account.id, {
  messages: [{ from: 'Shop', to: '99900000000', type: 'sms', text: 'Your order shipped' }],
});
const id = sent.messages[0].messageId;
let status = await engine.messages.status(account.id, id);
for (let i = 0; i < 200 && !isFinalStatus(status.deliverystatus); i++) {
  await new Promise((r) => setTimeout(r, 25));
  status = await engine.messages.status(account.id, id);
}

const server = await serve({ fetch: createHttpApp({ engine }).fetch, port: 0 });
const res = await fetch('http://127.0.0.1:' + server.port + '/bat/message/' + id, { headers: { 'X-Authorization-Key': key } });
const overHttp = await res.json();
const client = createSpillwayClient({ baseUrl: 'http://127.0.0.1:' + server.port, auth: { apiKey: key } });
const second = await client.sendMessages({ messages: [{ from: 'Shop', to: '99900000000', type: 'sms', text: 'And again' }] });
const read = await client.GET('/bat/message/{messageId}', { params: { path: { messageId: id } } });
const refused = await client.GET('/bat/message/{messageId}', { params: { path: { messageId: 987654 } } });
await server.close();
await engine.stop();
await storage.close();
console.log(JSON.stringify({
  id,
  status: status.deliverystatus,
  httpStatus: res.status,
  overHttp: overHttp.deliverystatus,
  clientSent: second.messages.length,
  clientSentId: second.messages[0].messageId > id,
  clientRead: read.data?.deliverystatus,
  clientError: [refused.response.status, refused.error?.error],
}));
`,
    );
    const out = JSON.parse(run(process.execPath, ['main.mjs'], app).trim().split('\n').pop()!) as Record<string, unknown>;
    expect(out).toMatchObject({
      status: 'delivered',
      httpStatus: 200,
      overHttp: 'delivered',
      clientSent: 1,
      clientSentId: true,
      clientRead: 'delivered',
      clientError: [404, 'not_found'],
    });
  });

  it("embed with createSpillway as the README shows: under a basePath beside the host's routes, 503 before start() and after stop()", () => {
    writeFileSync(
      join(app, 'embed.mjs'),
      `import { createServer } from 'node:http';
import { createSimulator } from '@spillway/channels';
import { createSpillway, toNodeHandler } from '@spillway/http';
import { createSqliteStorage } from '@spillway/sqlite';
import { createSpillwayClient } from '@spillway/client';

const spillway = createSpillway({
  storage: createSqliteStorage({ filename: 'embed.db' }),
  channels: [createSimulator({ latencyMs: 5 })],
  basePath: '/spillway',
  sandbox: false,
});
const handler = toNodeHandler(spillway);
const host = createServer((req, res) => void handler(req, res, () => res.writeHead(200).end('the shop')));
await new Promise((resolve) => host.listen(0, '127.0.0.1', resolve));
const origin = 'http://127.0.0.1:' + host.address().port;
const before = (await fetch(origin + '/spillway/health')).status;
await spillway.start();
const account = await spillway.engine.accounts.ensure({ login: 'shop', password: 'shop-password', balance: 10 });
await spillway.engine.accounts.approveAlphaName(account.id, 'Shop');
const { key } = await spillway.engine.accounts.createKey(account.id);
const client = createSpillwayClient({ baseUrl: origin + '/spillway', auth: { apiKey: key } });
const sent = await client.sendMessages({ messages: [{ from: 'Shop', to: '99900000000', type: 'sms', text: 'Shipped' }] });
let status;
for (let i = 0; i < 200 && status !== 'delivered'; i++) {
  await new Promise((r) => setTimeout(r, 25));
  status = (await client.GET('/bat/message/{messageId}', { params: { path: { messageId: sent.messages[0].messageId } } })).data?.deliverystatus;
}
const shop = await (await fetch(origin + '/orders')).text();
const sandbox = (await fetch(origin + '/spillway/sandbox/inbound', { method: 'POST' })).status;
const script = await fetch(origin + '/spillway/docs/scalar.js');
const docs = [script.status, (await script.json()).message];
let wrong = '';
try {
  createSpillway({ storage: 'shop.db', channels: [createSimulator()] });
} catch (error) {
  wrong = error.message;
}
await spillway.stop();
const after = (await fetch(origin + '/spillway/health')).status;
host.close();
console.log(JSON.stringify({ before, status, shop, sandbox, docs, after, wrong }));
`,
    );
    expect(existsSync(join(app, 'node_modules/@scalar/api-reference'))).toBe(false);
    const out = JSON.parse(run(process.execPath, ['embed.mjs'], app).trim().split('\n').pop()!) as Record<string, unknown>;
    expect(out).toEqual({
      before: 503,
      status: 'delivered',
      shop: 'the shop',
      sandbox: 404,
      // The API reference's package (83 MB) is an optional peer dependency: not installed, /docs says what to install.
      docs: [501, expect.stringContaining('npm install @scalar/api-reference')],
      after: 503,
      wrong: expect.stringMatching(/^createSpillway: storage must be a storage adapter/),
    });
  });

  it("compile in the user's TypeScript app (strict, NodeNext), and a misspelt body does not", () => {
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
        },
        include: ['*.ts'],
      }),
    );
    writeFileSync(
      join(app, 'typed.ts'),
      `import { createEngine, type Engine, type SendMessagesInput, type SendResponse, type MessageStatusRecord } from '@spillway/core';
import { runStorageContract } from '@spillway/core/testing';
import { storedMessageFromRow } from '@spillway/core/storage';
import { createSqliteStorage, type SqliteStorage } from '@spillway/sqlite';
import { createSimulator } from '@spillway/channels';
import { createHttpApp, createNodeHasher } from '@spillway/http';
import { createSpillwayClient, type Schemas } from '@spillway/client';

const storage: SqliteStorage = createSqliteStorage({ filename: ':memory:' });
const engine: Engine = createEngine({ storage, channels: [createSimulator({ latencyMs: 0 })], hasher: createNodeHasher() });
const app = createHttpApp({ engine });
const body: SendMessagesInput = { messages: [{ from: 'Shop', to: '99900000000', type: 'sms', text: 'Hi' }] };
export async function send(accountId: number): Promise<[SendResponse, MessageStatusRecord]> {
  const sent = await engine.messages.send(accountId, body);
  return [sent, await engine.messages.status(accountId, sent.messages[0]!.messageId)];
}
export const fetchHandler: (request: Request) => Response | Promise<Response> = app.fetch;
export { runStorageContract, storedMessageFromRow };
const client = createSpillwayClient({ baseUrl: 'http://127.0.0.1:8080', auth: { apiKey: 'sk_x' } });
export async function statusOverHttp(messageId: number): Promise<Schemas['MessageStatus'] | undefined> {
  return (await client.GET('/bat/message/{messageId}', { params: { path: { messageId } } })).data;
}
`,
    );
    run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', '.'], app);

    writeFileSync(
      join(app, 'typo.ts'),
      `import type { Engine } from '@spillway/core';
export async function typo(engine: Engine) {
  return engine.messages.send(1, { mesages: [{ form: 'x' }] });
}
`,
    );
    writeFileSync(
      join(app, 'client-typo.ts'),
      `import { createSpillwayClient } from '@spillway/client';
const client = createSpillwayClient({ baseUrl: 'http://127.0.0.1:8080' });
export const sent = client.POST('/bat/messagelist', { body: { mesages: [] } });
`,
    );
    let output = '';
    try {
      run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', '.'], app);
    } catch (error) {
      output = (error as Error).message;
    } finally {
      rmSync(join(app, 'typo.ts'));
      rmSync(join(app, 'client-typo.ts'));
    }
    expect(output).toMatch(/(?<!client-)typo\.ts\(3,\d+\): error TS\d+: Object literal may only specify known properties.*'mesages'/);
    expect(output).toMatch(/client-typo\.ts\(3,\d+\): error TS\d+: .*'mesages'/);
    expect(output).not.toMatch(/typed\.ts/);
  });
});
