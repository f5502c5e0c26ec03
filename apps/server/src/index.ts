export { createServer } from './create-server.ts';
export type { SpillwayServer, CreateServerOptions } from './create-server.ts';
export { readConfig, configSchema } from './config.ts';
export type { ServerConfig } from './config.ts';
export { bootstrap } from './bootstrap.ts';
