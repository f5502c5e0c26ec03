import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// Small pieces of the local servers that stand in for a vendor's endpoints in HTTP tests.

/** The whole body of a request, as text. */
export const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise<string>((resolve) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => resolve(body));
  });

/** Listens on a free port of 127.0.0.1 and answers the server's base URL. */
export const listen = async (server: Server): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

/**
 * The body of the social platform's webhook (`POST /social`): text messages to the business number
 * `phoneNumberId`, each from a phone number, with the platform's message id when given.
 */
export const socialWebhook = (phoneNumberId: string, messages: Array<{ from: string; id?: string; text: string }>): string =>
  JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: 'waba-1',
        changes: [
          {
            field: 'messages',
            value: {
              metadata: { phone_number_id: phoneNumberId },
              messages: messages.map((m) => ({ from: m.from, ...(m.id ? { id: m.id } : {}), type: 'text', text: { body: m.text } })),
            },
          },
        ],
      },
    ],
  });
