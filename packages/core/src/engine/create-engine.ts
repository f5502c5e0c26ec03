import { systemClock } from '../clock.ts';
import type { ChannelDriver } from '../ports/channel.ts';
import { defaultRateCard } from '../pricing/rate-card.ts';
import type { ChannelId } from '../types/channel.ts';
import type { MessageKind } from '../types/message.ts';
import { createAccountService } from './account-service.ts';
import { MachineAdvancer } from './advance.ts';
import type { Engine, EngineOptions } from './engine-types.ts';
import type { KindHandler } from './kind-handler.ts';
import { createCascadeService } from './cascade-service.ts';
import { createMessagingService, messageKindHandler } from './messaging-service.ts';
import { createWorker } from './worker.ts';

/**
 * Creates the engine over a storage and channel drivers. Nothing runs until `start()` (or, in
 * tests, `drain()`): every message advances through persisted snapshots and the outbox, so any
 * number of restarts resume where they were.
 *
 * @example
 * const engine = createEngine({ storage, channels: [createSimulator()], hasher: createNodeHasher() });
 * engine.start();
 */
export function createEngine(options: EngineOptions): Engine {
  const clock = options.clock ?? systemClock;
  const storage = options.storage;
  const rateCard = options.rateCard ?? defaultRateCard;
  const advancer = new MachineAdvancer();
  const drivers = new Map<ChannelId, ChannelDriver>();
  for (const driver of options.channels) for (const channel of driver.channels) drivers.set(channel, driver);
  const onError = options.onError ?? ((error: unknown) => console.error('[spillway] worker error', error));

  const defaultTtlSeconds = options.defaultTtlSeconds ?? 86_400;
  const cascades = createCascadeService({
    storage,
    clock,
    rateCard,
    advancer,
    notify: () => worker.notify(),
    defaultTtlSeconds,
    maxRetries: options.maxRetries,
    publicBaseUrl: options.publicBaseUrl,
  });
  const kinds: Record<MessageKind, KindHandler> = {
    message: messageKindHandler(storage, clock),
    cascade: cascades.handler,
  };
  const worker = createWorker({
    storage,
    clock,
    drivers,
    advancer,
    kinds,
    defaultTtlSeconds,
    onCommit: (commit) => {
      cascades.observe(commit);
      options.onCommit?.(commit);
    },
    batchSize: options.batchSize ?? 1000,
    onError,
  });
  const notify = () => worker.notify();

  return {
    clock,
    storage,
    accounts: createAccountService({ storage, hasher: options.hasher, clock, currency: options.currency ?? rateCard.currency }),
    messages: createMessagingService({ storage, clock, rateCard, advancer, notify, exclusive: (fn) => worker.exclusive(fn) }),
    cascades: cascades.service,
    start: () => worker.start(),
    stop: () => worker.stop(),
    receive: (receipt) => worker.context.report(receipt),
    drain: () => worker.drain(),
  };
}
