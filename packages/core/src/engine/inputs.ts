import type { z } from 'zod';
import type { cascadeItemSchema } from '../cascade/cascade-request.ts';
import type { variableItemSchema, variableUploadSchema } from '../cascade/variables.ts';
import type { sendRequestSchema } from '../messages/message-item.ts';
import type { routeSchema } from '../types/route.ts';
import type { messagePatchSchema } from './message-patch.ts';

// The bodies the public engine API takes, typed from the zod schemas that validate them at run
// time (`z.input`: what a caller may write, before defaults and transforms). The compiler catches
// a misspelt member; the engine still validates every body, so a value only known at run time
// (a parsed request) is checked all the same.

/** The body of {@link MessagingService.send}: `{ messages: [...] }`, 1 to 5000 messages (`POST /bat/messagelist`). */
export type SendMessagesInput = z.input<typeof sendRequestSchema>;

/** One message of {@link SendMessagesInput}. */
export type SendMessageItemInput = SendMessagesInput['messages'][number];

/**
 * The body of {@link MessagingService.update}: `{ cancel: true }` alone, or the members to replace
 * (`text`, `ttl`, `scheduledAt`, `messageData`, `fallbacks`) of a `scheduled` message.
 */
export type UpdateMessageInput = z.input<typeof messagePatchSchema>;

/** One cascade message (interface 2.6): `toPhone` and the content for each channel. */
export type CascadeMessageInput = z.input<typeof cascadeItemSchema>;

/** One message of the overview shape: a cascade message whose `toPhone` is called `recipient`. */
export type CascadeOverviewMessageInput = Omit<CascadeMessageInput, 'toPhone'> & {
  /** The phone number, country code first. */
  recipient: string | number;
};

/**
 * The overview shape of a cascade request: the top-level `fromName`, `messageType`, `ttl`,
 * `sheduledSent` and `route` apply to every message.
 */
export interface CascadeOverviewInput {
  fromName?: string;
  messageType?: CascadeMessageInput['messageType'];
  ttl?: CascadeMessageInput['ttl'];
  sheduledSent?: string;
  /** A Spillway extension: the route every message runs on, instead of the alpha-name's (`id` or `id@revision`). */
  route?: CascadeMessageInput['route'];
  messages: CascadeOverviewMessageInput[];
}

/**
 * The body of {@link CascadeService.send}, either shape of interface 4.2: an array of cascade
 * messages (a lone message counts as an array of one), or the overview `{ messages: [...] }`.
 */
export type CascadeSendInput = CascadeMessageInput | CascadeMessageInput[] | CascadeOverviewInput;

/** A variable as uploaded: `{ id, value }` (`%name=id%` in texts). */
export type VariableInput = z.input<typeof variableItemSchema>;

/** One recipient of a broadcast: a number, or a number with its own id and variables. */
export type BroadcastRecipientInput =
  | string
  | number
  | {
      toPhone: string | number;
      /** Becomes the recipient's `trackinId`. */
      id?: string | number;
      /** Fill the template's `%name=...%` for this recipient. */
      variables?: VariableInput[];
    };

/**
 * The body of {@link CascadeService.broadcast} (BroadcastCreateDTO): the members of a cascade
 * message once, as the template, and its `recipients`.
 */
export type BroadcastInput = Omit<CascadeMessageInput, 'toPhone' | 'id' | 'variables'> & {
  recipients: BroadcastRecipientInput[];
};

/** The body of {@link CascadeService.createRoute} and {@link CascadeService.updateRoute}: a route as data. */
export type RouteInput = z.input<typeof routeSchema>;

/** The body of {@link CascadeService.uploadVariables}: `{ items: [...] }` or the bare array. */
export type UploadVariablesInput = z.input<typeof variableUploadSchema>;
