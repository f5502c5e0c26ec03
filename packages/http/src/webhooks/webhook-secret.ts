import { randomBytes } from 'node:crypto';
import type { AccountStorage } from '@spillway/core';

/** The settings key of an account's webhook signing secret. */
export function webhookSecretKey(accountId: number): string {
  return `webhook-secret:${accountId}`;
}

/** A new Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The account's webhook signing secret, created and stored on first use. Concurrent first uses
 * agree: `setSettingIfAbsent` keeps the first secret written and answers it to everyone.
 */
export async function getWebhookSecret(
  storage: Pick<AccountStorage, 'getSetting' | 'setSettingIfAbsent'>,
  accountId: number,
): Promise<string> {
  const key = webhookSecretKey(accountId);
  return (await storage.getSetting(key)) ?? storage.setSettingIfAbsent(key, newWebhookSecret());
}
