// The ceiling of `pnpm bench`: a bare node:http server that reads the request body (if any) and
// answers a tiny JSON body. Started by bench/run.ts as its own process: `node bench/bare-node.mjs PORT`.
import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';
import process from 'node:process';

const body = JSON.stringify({ status: 'ok' });
const server = createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  const { port } = server.address();
  process.stdout.write(`${port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
