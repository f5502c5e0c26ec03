import { afterEach, beforeEach, describe } from 'vitest';
import type { Storage } from '../ports/storage.ts';
import { describeAccountStorage } from './account-storage-contract.ts';
import { describeIngest } from './ingest-contract.ts';
import { describeWork } from './work-contract.ts';

/** Options of {@link runStorageContract}. */
export interface StorageContractOptions {
  /** Shown in the suite's title. */
  name: string;
  /** A fresh, migrated, empty storage for each test. */
  create: () => Promise<Storage>;
}

/**
 * The conformance suite every Storage adapter passes: each method of AccountStorage,
 * MessageStorage and WorkStorage against a real database. Call it once from the adapter's test file.
 *
 * @example
 * runStorageContract({
 *   name: 'sqlite',
 *   create: async () => {
 *     const storage = createSqliteStorage();
 *     await storage.migrate();
 *     return storage;
 *   },
 * });
 */
export function runStorageContract(options: StorageContractOptions): void {
  describe(`storage contract: ${options.name}`, () => {
    let storage: Storage | undefined;
    beforeEach(async () => {
      storage = await options.create();
    });
    afterEach(async () => {
      await storage?.close();
      storage = undefined;
    });
    const ref = (): Storage => {
      if (!storage) throw new Error('the storage is created in beforeEach');
      return storage;
    };

    describeAccountStorage(ref);
    describeIngest(ref);
    describeWork(ref);
  });
}
