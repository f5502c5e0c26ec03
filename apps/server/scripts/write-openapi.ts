// Writes the reference server's OpenAPI document (`GET /openapi.json`) to the file named by the
// first argument, or to stdout. Starts no listener and no worker: an in-memory database only.
// Used by the Redocly lint of .ci/run and by @spillway/client's type generation.
import { writeFileSync } from 'node:fs';
import { createServer, readConfig } from '../src/index.ts';

const server = await createServer(readConfig({ SPILLWAY_DB: ':memory:', SPILLWAY_LOG_LEVEL: 'silent' }), {
  bootstrap: false,
  designerDir: false,
});
try {
  const res = await server.fetch(new Request('http://localhost/openapi.json'));
  if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}`);
  const text = `${JSON.stringify(await res.json(), null, 2)}\n`;
  const target = process.argv[2];
  if (target) writeFileSync(target, text);
  else process.stdout.write(text);
} finally {
  await server.close();
}
