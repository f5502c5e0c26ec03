import type { InboundMessage } from '../ports/inbound-storage.ts';

/** The body of the incoming-message callback (interface section 6). */
export interface InboundPayload {
  idUuid: string;
  alphaName: string;
  phoneNumber: string;
  text: string;
  /** ISO 8601 date-time of reception. */
  dt: string;
}

/** The callback body of a stored inbound message; fields in the interface's order. */
export function inboundPayloadOf(message: InboundMessage): InboundPayload {
  return {
    idUuid: message.idUuid,
    alphaName: message.alphaName,
    phoneNumber: message.phoneNumber,
    text: message.text,
    dt: new Date(message.receivedAt).toISOString(),
  };
}
