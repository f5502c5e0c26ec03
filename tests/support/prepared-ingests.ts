import type { Storage } from '@spillway/core';
import type { IngestBatch } from '@spillway/core/storage';

/**
 * Watches `storage`'s ingests, passing every call through: the batches given to `prepareIngest`,
 * and those that reached `ingest` or `ingestMany` without having been prepared first.
 */
export function watchPreparedIngests(storage: Storage): { prepared: Set<IngestBatch>; unprepared: IngestBatch[] } {
  const prepared = new Set<IngestBatch>();
  const unprepared: IngestBatch[] = [];
  const prepare = storage.prepareIngest?.bind(storage);
  const ingest = storage.ingest.bind(storage);
  const ingestMany = storage.ingestMany.bind(storage);
  storage.prepareIngest = (batch) => {
    prepared.add(batch);
    prepare?.(batch);
  };
  storage.ingest = (batch) => {
    if (!prepared.has(batch)) unprepared.push(batch);
    return ingest(batch);
  };
  storage.ingestMany = (batches) => {
    unprepared.push(...batches.filter((b) => !prepared.has(b)));
    return ingestMany(batches);
  };
  return { prepared, unprepared };
}
