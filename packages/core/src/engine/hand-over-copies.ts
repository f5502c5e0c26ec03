import type { IngestBatch, IngestResult } from '../ports/message-storage.ts';
import { handedOverMessages } from '../storage/ingest-rows.ts';
import type { StoredMessage } from '../types/message.ts';

/** A handed-over message as its worker takes it, valid while its lease holds (`until`, exclusive). */
export interface HandedOverCopy {
  message: StoredMessage;
  until: number;
}

/** The messages an accepted ingest handed over, as its worker takes them (`handedOverMessages` with their lease's end). */
export function handedOverCopies(batch: IngestBatch, result: IngestResult | null): HandedOverCopy[] {
  const until = batch.lease?.until ?? 0;
  return handedOverMessages(batch, result).map((message) => ({ message, until }));
}
