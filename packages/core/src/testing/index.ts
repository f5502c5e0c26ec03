// Conformance suites for adapters: `runStorageContract`, `runChannelDriverContract`.
export {};
