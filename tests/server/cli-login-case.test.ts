import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { cli } from '../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'spillway-cli-case-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Logins are one regardless of case: `--login SHOP` names the account created as `Shop`, and
// creating `shop` beside it is refused (the storage contract checks both storages).
it('finds the account of --login in any case, and refuses to create one differing only by case', async () => {
  const db = join(dir, 'case.db');
  expect(await cli(db, 'accounts', 'create', '--login', 'Shop', '--password', 'shop-password')).toMatchObject({ login: 'Shop' });
  expect(await cli(db, 'keys', 'create', '--login', 'SHOP', '--label', 'ops')).toMatchObject({ apiKey: { label: 'ops' } });
  await expect(cli(db, 'accounts', 'create', '--login', 'shop', '--password', 'shop-password')).rejects.toThrow(/login shop is taken/);
}, 60_000);
