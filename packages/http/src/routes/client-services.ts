import { SpillwayError } from '@spillway/core';
import { createClientService, createSenderService } from '@spillway/core/adapter';
import { hasClientStorage } from '@spillway/core/storage';
import type { ClientStorage, Engine, SenderApplication, Storage } from '@spillway/core';
import type { ClientService, SenderService } from '@spillway/core/adapter';

/** The engine's storage as client storage; a 500 for an adapter that keeps no client records. */
export function clientStorageOf(engine: Engine): Storage & ClientStorage {
  const storage = engine.storage;
  if (!hasClientStorage(storage)) throw new SpillwayError('not_configured', `the ${storage.name} storage keeps no client records`);
  return storage;
}

interface ClientServices {
  senders: SenderService;
  clients: ClientService;
}

const cache = new WeakMap<Engine, ClientServices>();

/** The client-management services over the engine's storage (which must hold the client records). */
export function clientServicesOf(engine: Engine): ClientServices {
  let services = cache.get(engine);
  if (!services) {
    const storage = clientStorageOf(engine);
    const deps = { storage, accounts: engine.accounts, clock: engine.clock };
    services = {
      senders: createSenderService(deps),
      clients: createClientService(deps),
    };
    cache.set(engine, services);
  }
  return services;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A sender application as the API answers it. */
export function applicationView(a: SenderApplication) {
  return {
    id: a.id,
    kind: a.kind,
    name: a.name,
    channels: a.channels,
    status: a.status,
    reason: a.reason,
    details: a.details,
    createdAt: iso(a.createdAt)!,
    decidedAt: iso(a.decidedAt),
  };
}
