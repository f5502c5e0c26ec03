import { createServer as createNetServer } from 'node:net';

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/**
 * The environment of a reference server under benchmark: a SQLite file, the simulator at zero
 * latency, rate limits raised, and a bootstrap account `bench` with the API key `key`, the
 * alpha-name `Bench` and `balance`.
 */
export function benchServerEnv(options: { db: string; port: number; key: string; balance: number }): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: '',
    SPILLWAY_DB: options.db,
    PORT: String(options.port),
    SPILLWAY_LOG_LEVEL: 'silent',
    SPILLWAY_SIMULATOR_LATENCY_MS: '0',
    SPILLWAY_RATE_MESSAGING: '1000000/1000000',
    SPILLWAY_RATE_DATA: '1000000/1000000',
    SPILLWAY_BOOTSTRAP_LOGIN: 'bench',
    SPILLWAY_BOOTSTRAP_PASSWORD: 'bench-password',
    SPILLWAY_BOOTSTRAP_API_KEY: options.key,
    SPILLWAY_BOOTSTRAP_ALPHA_NAMES: 'Bench',
    SPILLWAY_BOOTSTRAP_BALANCE: String(options.balance),
  };
}
