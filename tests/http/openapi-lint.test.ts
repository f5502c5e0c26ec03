import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createServer, readConfig } from '@spillway/server';
import { describe, expect, it } from 'vitest';

const REDOCLY = fileURLToPath(new URL('../../node_modules/.bin/redocly', import.meta.url));

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer: string }> }>;
}

// The warnings the recommended rules give that the interface itself causes: its paths are the
// interface's own, probes have no 4xx answer, and a short link answers a redirect.
const KNOWN_WARNINGS = [
  'no-ambiguous-paths #/paths/~1api~1CascadeMessage~1status_guid~1{guid}',
  'no-ambiguous-paths #/paths/~1api~1CascadeMessage~1status_id~1{id}',
  'operation-4xx-response #/paths/~1health/get/responses',
  'operation-4xx-response #/paths/~1metrics/get/responses',
  'operation-4xx-response #/paths/~1openapi.json/get/responses',
  'operation-4xx-response #/paths/~1docs/get/responses',
  'operation-4xx-response #/paths/~1docs~1scalar.js/get/responses',
  'operation-2xx-response #/paths/~1s~1{code}/get/responses',
];

describe("Redocly's recommended rules", () => {
  it('find no error in the reference server’s document, and no warning beyond those the interface causes', async () => {
    const server = await createServer(readConfig({ SPILLWAY_DB: ':memory:', SPILLWAY_LOG_LEVEL: 'silent' }), {
      bootstrap: false,
      designerDir: false,
    });
    const dir = mkdtempSync(join(tmpdir(), 'spillway-openapi-'));
    try {
      const doc = await (await server.fetch(new Request('http://localhost/openapi.json'))).text();
      writeFileSync(join(dir, 'openapi.json'), doc);
      const { stdout } = await promisify(execFile)(REDOCLY, ['lint', '--extends=recommended', '--format=json', 'openapi.json'], {
        cwd: dir,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
      const report = JSON.parse(stdout) as LintReport;
      const errors = report.problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message}`);
      expect(errors).toEqual([]);
      const warnings = report.problems.filter((p) => p.severity !== 'error').map((p) => `${p.ruleId} ${p.location[0]?.pointer}`);
      expect(warnings.sort()).toEqual([...KNOWN_WARNINGS].sort());
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await server.close();
    }
  }, 60_000);
});
