/**
 * `@spillway/core/testing`: conformance suites for adapters (`runStorageContract`,
 * `runChannelDriverContract`, ...). They declare vitest suites: call them from a test file.
 *
 * @module @spillway/core/testing
 */
export { runStorageContract } from './storage-contract.ts';
export type { StorageContractOptions } from './storage-contract.ts';
export { runChatHubStorageContract } from './chat-hub-contract.ts';
export type { ChatHubStorageContractOptions } from './chat-hub-contract.ts';
export { runCascadeStorageContract, type CascadeStorageContractOptions } from './cascade-contract.ts';
export { runInboundStorageContract, type InboundStorageContractOptions } from './inbound-contract.ts';
export { runChannelDriverContract } from './channel-driver-contract.ts';
export type { ChannelDriverContractOptions, ContractFailureCase } from './channel-driver-contract.ts';
export { runClientStorageContract, type ClientStorageContractOptions } from './client-storage-contract.ts';
export { runReachabilityStorageContract, type ReachabilityStorageContractOptions } from './reachability-contract.ts';
export { runAlphaNameDirectoryContract, type AlphaNameDirectoryContractOptions } from './alpha-name-directory-contract.ts';
export { runPerTurnReadsContract, type PerTurnReadsContractOptions } from './per-turn-contract.ts';
export { CLASHING_LOGINS, CLASHING_LOGINS_WARNING, expectKeptLoginClashes } from './kept-login-clashes.ts';
