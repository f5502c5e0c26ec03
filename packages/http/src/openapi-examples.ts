// Examples of the main operations for the OpenAPI document: `/docs` shows them and prefills its
// try-it with them, and the Redocly lint checks each against its schema. The numbers are the
// simulator's test numbers (`999...01`: the chat-app attempt fails, the SMS fallback delivers).

/** `POST /bat/messagelist`: a chat-app message with an SMS fallback. */
export const sendMessagesExample = {
  messages: [
    {
      type: 'chatapp_service',
      from: 'Acme',
      to: '+99912345601',
      text: 'Your order 1001 has shipped',
      customerMessageId: 'order-1001-shipped',
      fallbacks: [{ type: 'sms', from: 'Acme', to: '+99912345601', text: 'Your order 1001 has shipped' }],
    },
  ],
};

/** The answer to {@link sendMessagesExample}. */
export const sendMessagesResponseExample = {
  messagelistId: 41,
  messages: [
    {
      messageId: 1207,
      from: 'Acme',
      to: '99912345601',
      text: 'Your order 1001 has shipped',
      dtExpire: null,
      customerMessageId: 'order-1001-shipped',
      partsCount: 1,
      type: 'chatapp_service',
    },
  ],
};

/** `GET /bat/message/{messageId}` of that message once its fallback delivered. */
export const messageStatusExample = {
  messagelistId: 41,
  messageId: 1207,
  deliverystatus: 'delivered',
  partscount: 1,
  cost: 0.03,
  customerMessageId: 'order-1001-shipped',
  type: 'chatapp_service',
  from: 'Acme',
  to: '99912345601',
  dtExpire: null,
  fallbacks: [
    {
      from: 'Acme',
      to: '99912345601',
      type: 'sms',
      text: 'Your order 1001 has shipped',
      deliverystatus: 'delivered',
      partsCount: 1,
      cost: 0.02,
      extendedStatuses: [
        { status: 'Sent', channel: 'sms', attempt: 1, type: 'sms', dt: '2026-11-23T10:00:02.000Z', error: null, driver: 'kannel' },
        { status: 'Delivered', channel: 'sms', attempt: 1, type: 'sms', dt: '2026-11-23T10:00:03.000Z', error: null, driver: 'kannel' },
      ],
    },
  ],
  extendedStatuses: [
    {
      status: 'Sent',
      channel: 'chatapp',
      attempt: 0,
      type: 'chatapp_service',
      dt: '2026-11-23T10:00:00.000Z',
      error: null,
      driver: 'chatapp',
    },
    {
      status: 'Failed',
      channel: 'chatapp',
      attempt: 0,
      type: 'chatapp_service',
      dt: '2026-11-23T10:00:01.000Z',
      error: 'undeliverable',
      driver: 'chatapp',
    },
    { status: 'Sent', channel: 'sms', attempt: 1, type: 'sms', dt: '2026-11-23T10:00:02.000Z', error: null, driver: 'kannel' },
    { status: 'Delivered', channel: 'sms', attempt: 1, type: 'sms', dt: '2026-11-23T10:00:03.000Z', error: null, driver: 'kannel' },
  ],
  partsCount: 1,
  rate: 0.01,
  rateAmount: 0.01,
  rateCurrency: 'EUR',
  billAmount: 0.03,
  billCurrency: 'EUR',
};

/** `POST /api/CascadeMessage/send_message/async`: one cascade message on the account's route. */
export const cascadeRequestExample = [
  {
    id: 'order-1001',
    fromName: 'Acme',
    toPhone: '99912345601',
    messageType: 'transaction',
    text: 'Your order 1001 has shipped',
  },
];

/** The answer to {@link cascadeRequestExample}. */
export const cascadeResponseExample = [{ messageId: '0b7d3c52-4f0e-4d6a-9a4e-2f1d5c8e7a10', trackinId: 'order-1001' }];
