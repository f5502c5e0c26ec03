import { createSqliteStorage } from '@spillway/sqlite';
import { createEngine } from '@spillway/core';
import { createSimulator } from '@spillway/channels';
import { createNodeHasher } from '@spillway/http';
import { mkdtempSync } from 'node:fs'; import { tmpdir } from 'node:os'; import { join } from 'node:path';
import { request } from './engine-requests.ts';
const dir = mkdtempSync(join(tmpdir(), 'exp-'));
for (const variant of ['base', 'noacct', 'noacct+nowalletidx', 'base']) {
  const storage = createSqliteStorage({ filename: join(dir, `${variant}-${Math.random()}.db`) });
  if (variant.includes('noacct')) storage.db.exec('DROP INDEX messages_account_created');
  if (variant.includes('nowalletidx')) storage.db.exec('DROP INDEX wallet_transactions_account');
  const engine = createEngine({ storage, channels: [createSimulator({ latencyMs: 0 })], hasher: createNodeHasher(), worker: false });
  const a = await engine.accounts.create({ login: 'x', password: 'bench-password', balance: 100_000_000 });
  await engine.accounts.approveAlphaName(a.id, 'Bench');
  const bodies = Array.from({ length: 22 }, (_, r) => request(5000, `r${r}`));
  await engine.messages.send(a.id, bodies[0]); await engine.messages.send(a.id, bodies[1]);
  const t = performance.now();
  for (const b of bodies.slice(2)) await engine.messages.send(a.id, b);
  console.log(variant, Math.round(100000 / (performance.now() - t) * 1000));
  await storage.close();
}
