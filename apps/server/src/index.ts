export { createServer } from './create-server.ts';
export type { SpillwayServer, CreateServerOptions } from './create-server.ts';
export { readConfig, configSchema } from './config.ts';
export type { ServerConfig } from './config.ts';
export { bootstrap } from './bootstrap.ts';
export { buildDrivers, loadDriversConfig, parseDriversConfig, driversConfigSchema } from './drivers-config.ts';
export type { DriversConfig, BuiltDrivers } from './drivers-config.ts';
