export { createSimulator, simulatedOutcome } from './simulator/simulator.ts';
export type { SimulatorOptions, SimulatedOutcome } from './simulator/simulator.ts';
export { createKannelDriver, kannelMoUrl } from './kannel/kannel.ts';
export type { KannelOptions } from './kannel/kannel.ts';
export { dlrOutcome, sendsmsOutcome, DEFAULT_DLR_MASK } from './kannel/kannel-status.ts';
export { SMPP_ERRORS, smppFailure, receiptState, parseReceiptText } from './smpp/smpp-status.ts';
export { createSmppDriver } from './smpp/smpp.ts';
export type { SmppOptions } from './smpp/smpp.ts';
export { splitSms } from './smpp/smpp-encoding.ts';
