import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { GENERATED_FILE, generateTypes } from '../scripts/generate.ts';

it('src/openapi.ts is what the generator makes of the current route definitions', async () => {
  const fresh = (await generateTypes()) === readFileSync(GENERATED_FILE, 'utf8');
  expect(fresh, 'src/openapi.ts is stale: run `npx -y pnpm@10 --filter @spillway/client generate` and commit it').toBe(true);
}, 60_000);
