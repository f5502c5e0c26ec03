/**
 * Incoming chat-app messages and the persisted outbox of their webhook deliveries.
 * Filled in by the inbound work; `lastInboundAt` is fixed because the cascade session check uses it.
 */
export interface InboundStorage {
  /**
   * When `phoneNumber` last wrote to `alphaName` of the account (ms), or null: a chat-app
   * session is open for 24 hours after the recipient's last message.
   */
  lastInboundAt(accountId: number, alphaName: string, phoneNumber: string): Promise<number | null>;
}
