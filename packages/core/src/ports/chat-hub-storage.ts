/** Chat hub: companies' operators, revoked tokens and signing keys. Filled in by the chat hub work. */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface ChatHubStorage {}
