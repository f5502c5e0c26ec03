import { createSqliteStorage } from '@spillway/sqlite';
import { createPostgresStorage } from '@spillway/postgres';
import { createEngine } from '@spillway/core';
import type { Storage } from '@spillway/core';
import { createSimulator } from '@spillway/channels';
import { createNodeHasher } from '@spillway/http';
import { mkdtempSync } from 'node:fs'; import { tmpdir } from 'node:os'; import { join } from 'node:path';
import { request } from './engine-requests.ts';
const dir = mkdtempSync(join(tmpdir(), 'exp-'));
async function measure(storage: Storage, label: string, n = 12) {
  const engine = createEngine({ storage, channels: [createSimulator({ latencyMs: 0 })], hasher: createNodeHasher(), worker: false });
  const a = await engine.accounts.create({ login: 'x' + Math.random(), password: 'bench-password', balance: 100_000_000 });
  await engine.accounts.approveAlphaName(a.id, 'Bench');
  const bodies = Array.from({ length: n + 2 }, (_, r) => request(5000, `r${r}`));
  await engine.messages.send(a.id, bodies[0]); await engine.messages.send(a.id, bodies[1]);
  const c = process.cpuUsage(); const t = performance.now();
  for (const b of bodies.slice(2)) await engine.messages.send(a.id, b);
  const u = process.cpuUsage(c);
  console.log(label.padEnd(30), Math.round(n * 5000 / (performance.now() - t) * 1000), 'msg/s; node CPU', ((u.user + u.system) / n / 5000).toFixed(1), 'µs/msg');
}
const which = process.argv[2];
if (which === 'sqlite') for (const fk of ['ON', 'OFF', 'ON', 'OFF']) {
  const s = createSqliteStorage({ filename: join(dir, `fk${Math.random()}.db`) });
  s.db.pragma(`foreign_keys = ${fk}`);
  await measure(s, `sqlite fk ${fk}`);
  await s.close();
}
if (which === 'pg') for (const fk of ['on', 'off']) {
  const schema = `exp_${Date.now().toString(36)}`;
  const s = createPostgresStorage({ connectionString: process.env['DATABASE_URL']!, schema });
  await s.migrate();
  if (fk === 'off') {
    const { rows } = await s.pool.query(`SELECT conrelid::regclass::text AS t, conname FROM pg_constraint WHERE contype = 'f' AND connamespace = '${schema}'::regnamespace AND conrelid::regclass::text ~ '(messages|wallet_transactions|history)$'`);
    for (const r of rows) await s.pool.query(`ALTER TABLE ${r.t} DROP CONSTRAINT "${r.conname}"`);
    console.log('dropped', rows.map((r) => r.t + '.' + r.conname).join(', '));
  }
  await measure(s, `pg fk ${fk}`, 6);
  await s.pool.query(`DROP SCHEMA "${schema}" CASCADE`); await s.close();
}
