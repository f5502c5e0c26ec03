import { describe, expectTypeOf, it } from 'vitest';
import type {
  BroadcastInput,
  CascadeAccepted,
  CascadeSendInput,
  Engine,
  MessageStatusRecord,
  RouteInput,
  RouteView,
  SendMessagesInput,
  SendResponse,
  UpdateMessageInput,
  UploadVariablesInput,
} from '@spillway/core';

// Compile-time checks of the typed engine API: `pnpm typecheck` fails if a misspelt body
// compiles again (each `@ts-expect-error` would then be unused). The engine is only declared: no
// call runs, vitest merely loads the file.
declare const engine: Engine;
const id = 1;
const never = false;

describe('the typed engine API', () => {
  it('types the bodies of sends and updates from the zod schemas', () => {
    expectTypeOf<Engine['messages']['send']>().parameter(1).toEqualTypeOf<SendMessagesInput>();
    expectTypeOf<Engine['messages']['send']>().returns.resolves.toEqualTypeOf<SendResponse>();
    expectTypeOf<Engine['messages']['update']>().parameter(2).toEqualTypeOf<UpdateMessageInput>();
    expectTypeOf<Engine['messages']['update']>().returns.resolves.toEqualTypeOf<MessageStatusRecord>();
    expectTypeOf<Engine['cascades']['send']>().parameter(1).toEqualTypeOf<CascadeSendInput>();
    expectTypeOf<Engine['cascades']['send']>().returns.resolves.toEqualTypeOf<CascadeAccepted[]>();
    expectTypeOf<Engine['cascades']['broadcast']>().parameter(1).toEqualTypeOf<BroadcastInput>();
    expectTypeOf<Engine['cascades']['createRoute']>().parameter(1).toEqualTypeOf<RouteInput>();
    expectTypeOf<Engine['cascades']['createRoute']>().returns.resolves.toEqualTypeOf<RouteView>();
    expectTypeOf<Engine['cascades']['uploadVariables']>().parameter(1).toEqualTypeOf<UploadVariablesInput>();
  });

  it('accepts well-formed bodies and rejects misspelt ones', () => {
    if (never) {
      void engine.messages.send(id, { messages: [{ from: 'Shop', to: '99900000000', type: 'sms', text: 'Hi' }] });
      void engine.messages.send(id, {
        messages: [
          {
            from: 'Shop',
            to: '99900000000',
            type: 'chatapp_service',
            text: 'Your parcel',
            ttl: 3600,
            customerMessageId: 'order-1',
            fallbacks: [{ from: 'Shop', to: '99900000000', type: 'sms', text: 'Your parcel' }],
          },
        ],
      });
      // @ts-expect-error `mesages` is not a member of a send request
      void engine.messages.send(id, { mesages: [{ form: 'x' }] });
      // @ts-expect-error `form` is not a member of a message (and `from` is missing)
      void engine.messages.send(id, { messages: [{ form: 'Shop', to: '99900000000', type: 'sms', text: 'Hi' }] });
      // @ts-expect-error an unknown message type
      void engine.messages.send(id, { messages: [{ from: 'Shop', to: '99900000000', type: 'smss', text: 'Hi' }] });
      // @ts-expect-error an SMS needs its text
      void engine.messages.send(id, { messages: [{ from: 'Shop', to: '99900000000', type: 'sms' }] });

      void engine.messages.update(id, 7, { cancel: true });
      void engine.messages.update(id, 7, { text: 'Changed', scheduledAt: null });
      // @ts-expect-error `cancel` takes only `true`
      void engine.messages.update(id, 7, { cancel: false });
      // @ts-expect-error `txt` is not a member of a change
      void engine.messages.update(id, 7, { txt: 'Changed' });

      void engine.cascades.send(id, [{ toPhone: '99900000000', fromName: 'Shop', text: 'Hi' }]);
      void engine.cascades.send(id, { toPhone: '99900000000', text: 'Hi' });
      void engine.cascades.send(id, { fromName: 'Shop', messages: [{ recipient: '99900000000', text: 'Hi' }] });
      // @ts-expect-error `toPhnoe` is not a member of a cascade message
      void engine.cascades.send(id, [{ toPhnoe: '99900000000', text: 'Hi' }]);
      // @ts-expect-error an unknown message type
      void engine.cascades.send(id, [{ toPhone: '99900000000', text: 'Hi', messageType: 'promotion' }]);

      void engine.cascades.broadcast(id, {
        fromName: 'Shop',
        text: 'Hi',
        recipients: ['99900000000', { toPhone: '99900000001', id: 'a' }],
      });
      // @ts-expect-error a broadcast names its recipients
      void engine.cascades.broadcast(id, { fromName: 'Shop', text: 'Hi', recipient: ['99900000000'] });

      void engine.cascades.createRoute(id, { name: 'SMS only', start: 'sms', steps: [{ id: 'sms', channel: 'sms' }], edges: [] });
      // @ts-expect-error `fax` is not a channel
      void engine.cascades.createRoute(id, { name: 'Fax', start: 'fax', steps: [{ id: 'fax', channel: 'fax' }], edges: [] });

      void engine.cascades.uploadVariables(id, { items: [{ id: 7, value: 'https://example.com' }] });
      void engine.cascades.uploadVariables(id, [{ id: 'name', value: 'Ada' }]);
      // @ts-expect-error a variable has a value
      void engine.cascades.uploadVariables(id, [{ id: 'name', valeu: 'Ada' }]);
    }
  });
});
