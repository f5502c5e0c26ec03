import {
  broadcastRecipientSchema,
  cascadeItemSchema,
  chatappMessageSchema,
  fallbackSchema,
  messageItemSchema,
  messagePatchSchema,
  messengerMessageSchema,
  routeEdgeSchema,
  routeSchema,
  routeStepSchema,
  sendRequestSchema,
  variableItemSchema,
} from '@spillway/core';
import type { z } from 'zod';
import { credentialsSchema } from './chat-hub/chat-hub-schemas.ts';
import { component } from './openapi-components.ts';
import {
  applicationSchema,
  clientSchema,
  clientSendersSchema,
  organizationSchema,
  provisionedClientSchema,
  senderStateSchema,
} from './routes/client-schemas.ts';
import {
  bindingRequestSchema,
  bindingSchema,
  broadcastRequestSchema,
  broadcastResponseSchema,
  cascadeRequestSchema,
  cascadeResponseSchema,
  cascadeStatusSchema,
  routeBodySchema,
  routeViewSchema,
} from './routes/cascade-schemas.ts';
import {
  alphaNameCallbackRequestSchema,
  alphaNameSchema,
  balanceSchema,
  chatappSingleMessageRequestSchema,
  errorBodySchema,
  extendedStatusSchema,
  fallbackStatusSchema,
  healthSchema,
  messageStatusSchema,
  sendResponseSchema,
  sentMessageSchema,
  singleMessageRequestSchema,
  walletHistorySchema,
  walletItemSchema,
} from './schemas.ts';

// The names of the schemas the OpenAPI document shows as components: the types of a generated
// client. Schemas of core are named here, so that core stays free of documentation concerns.

const pascal = (snake: string): string =>
  snake
    .split('_')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

/** The schema inside optional, nullable, default and transform wrappers. */
function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema as z.ZodType & { _zod: { def: { type: string; innerType?: z.ZodType; in?: z.ZodType } } };
  for (;;) {
    const def = current._zod.def;
    const inner = def.type === 'pipe' ? def.in : def.innerType;
    if (!inner) return current;
    current = inner as typeof current;
  }
}

/** Each type of message (and of fallback) its own component, its messageData one too. */
function nameVariants(union: typeof messageItemSchema | typeof fallbackSchema, suffix: string): void {
  for (const option of union.options) {
    const type = (option.shape.type as z.ZodLiteral<string>).value;
    component(option, `${pascal(type)}${suffix}`);
    const data = unwrap(option.shape.messageData as z.ZodType) as z.ZodType & { shape?: Record<string, unknown> };
    if (data.shape && Object.keys(data.shape).length > 0) component(data, `${pascal(type)}Data`);
  }
}

component(errorBodySchema, 'Error', 'The JSON error body of every error answer.');
component(healthSchema, 'Health');

component(sendRequestSchema, 'SendMessagesRequest', 'A campaign: 1 to 5000 messages, each with its fallbacks.');
component(messageItemSchema, 'MessageItem', 'One message of a send request; `type` picks its shape.');
component(fallbackSchema, 'Fallback', 'A fallback: sent when the message (or the fallback before) fails.');
nameVariants(messageItemSchema, 'Message');
nameVariants(fallbackSchema, 'Fallback');
component(messagePatchSchema, 'MessagePatch');
component(singleMessageRequestSchema, 'SingleMessageRequest', 'One message of the messaging API; `type` may be left out for an SMS.');
component(
  chatappSingleMessageRequestSchema,
  'ChatappMessageRequest',
  'One message of a `chatapp_*` type; `type` may be left out for a `chatapp_service` message.',
);
component(sendResponseSchema, 'SendMessagesResponse');
component(sentMessageSchema, 'SentMessage');
component(messageStatusSchema, 'MessageStatus');
component(extendedStatusSchema, 'ExtendedStatus');
component(fallbackStatusSchema, 'FallbackStatus');
component(balanceSchema, 'Balance');
component(walletItemSchema, 'WalletTransaction');
component(walletHistorySchema, 'WalletHistory');
component(alphaNameCallbackRequestSchema, 'AlphaNameCallbackRequest');
component(alphaNameSchema, 'AlphaName');

component(cascadeRequestSchema, 'CascadeRequest', 'Either shape of interface 4.2: the array of cascade messages, or the overview object.');
component(cascadeItemSchema, 'CascadeMessage');
component(chatappMessageSchema, 'ChatappMessage');
component(messengerMessageSchema, 'MessengerMessage');
component(variableItemSchema, 'VariableValue');
component(cascadeResponseSchema, 'CascadeAccepted');
component(cascadeStatusSchema, 'CascadeStatus');
component(broadcastRequestSchema, 'BroadcastRequest');
component(broadcastRecipientSchema, 'BroadcastRecipient');
component(broadcastResponseSchema, 'BroadcastAccepted');
component(routeSchema, 'Route');
component(routeStepSchema, 'RouteStep');
component(routeEdgeSchema, 'RouteEdge');
component(routeViewSchema, 'RouteRevision');
component(routeBodySchema, 'RouteBody');
component(bindingSchema, 'RouteBinding');
component(bindingRequestSchema, 'RouteBindingRequest');

component(applicationSchema, 'SenderApplication');
component(senderStateSchema, 'SenderState');
component(clientSendersSchema, 'ClientSenders');
component(clientSchema, 'Client');
component(provisionedClientSchema, 'ProvisionedClient');
component(organizationSchema, 'Organization');
component(credentialsSchema, 'Credentials');
