import { z } from 'zod';
import { SpillwayError } from '../errors.ts';
import { issuesToDetails } from '../validation/issue-details.ts';
import { normalizePhoneNumber } from '../messages/phone-number.ts';
import { wellFormed } from '../validation/well-formed.ts';

/** Longest text of an injected incoming message, characters. */
export const MAX_INBOUND_TEXT = 4096;

/** Body of `POST /sandbox/inbound`: an incoming chat-app message injected into the simulator. */
export const inboundRequestSchema = z.object({
  alphaName: z.string().min(1).max(64).meta({ description: 'One of the account alpha-names' }),
  phoneNumber: z.string().min(1).max(32).meta({ description: 'The user who writes, international format', example: '79991234567' }),
  text: z.string().min(1).max(MAX_INBOUND_TEXT),
});

/**
 * An incoming message a driver reports: its text may be empty, as a phone can send an empty SMS
 * (an SMPP `short_message` of no octets, Kannel's empty `%b`), which is a message all the same.
 */
const reportedInboundSchema = inboundRequestSchema.extend({ text: z.string().max(MAX_INBOUND_TEXT) });

/** A validated incoming message (see {@link inboundRequestSchema}). */
export type InboundRequest = z.infer<typeof inboundRequestSchema>;

/**
 * Where an incoming message comes from: the client's own injection (`POST /sandbox/inbound`, whose
 * text is not empty) or a driver (the network's message as it came, an empty text included).
 */
export type InboundSource = 'client' | 'driver';

/**
 * Validates an incoming message, listing every bad field, and normalises the phone number to
 * digits (as recipients of outgoing messages are, so the chat-app session matches) and the text
 * to well-formed UTF-16 (a lone surrogate becomes U+FFFD, as storing it would make it on
 * PostgreSQL), so that the answer echoes the text that is stored.
 */
export function parseInboundRequest(body: unknown, from: InboundSource = 'client'): InboundRequest {
  const parsed = (from === 'driver' ? reportedInboundSchema : inboundRequestSchema).safeParse(body);
  if (!parsed.success) throw new SpillwayError('validation_failed', 'Invalid incoming message', issuesToDetails(parsed.error.issues));
  const phoneNumber = normalizePhoneNumber(parsed.data.phoneNumber);
  if (!phoneNumber) {
    throw new SpillwayError('validation_failed', 'Invalid incoming message', [
      { path: 'phoneNumber', message: 'not a valid phone number' },
    ]);
  }
  return { ...parsed.data, phoneNumber, text: wellFormed(parsed.data.text) };
}
