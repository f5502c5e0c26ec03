import type { FailureClass, Receipt } from '@spillway/core';

/**
 * SMPP 3.4 `command_status` values of a failed `submit_sm_resp`, mapped to Spillway's failure
 * classes (the table is in docs/decisions.md). Codes not listed are `permanent` unless the
 * driver's `errorClasses` option says otherwise: an unknown vendor code retried forever costs
 * more than one that moves the cascade on.
 */
export const SMPP_ERRORS: Readonly<Record<number, { name: string; failure: FailureClass }>> = {
  0x01: { name: 'ESME_RINVMSGLEN', failure: 'permanent' },
  0x02: { name: 'ESME_RINVCMDLEN', failure: 'permanent' },
  0x03: { name: 'ESME_RINVCMDID', failure: 'permanent' },
  0x04: { name: 'ESME_RINVBNDSTS', failure: 'temporary' },
  0x05: { name: 'ESME_RALYBND', failure: 'temporary' },
  0x08: { name: 'ESME_RSYSERR', failure: 'temporary' },
  0x0a: { name: 'ESME_RINVSRCADR', failure: 'permanent' },
  0x0b: { name: 'ESME_RINVDSTADR', failure: 'undeliverable' },
  0x0c: { name: 'ESME_RINVMSGID', failure: 'permanent' },
  0x0d: { name: 'ESME_RBINDFAIL', failure: 'temporary' },
  0x0e: { name: 'ESME_RINVPASWD', failure: 'permanent' },
  0x0f: { name: 'ESME_RINVSYSID', failure: 'permanent' },
  0x14: { name: 'ESME_RMSGQFUL', failure: 'throttled' },
  0x33: { name: 'ESME_RINVNUMDESTS', failure: 'permanent' },
  0x43: { name: 'ESME_RINVESMCLASS', failure: 'permanent' },
  0x45: { name: 'ESME_RSUBMITFAIL', failure: 'temporary' },
  0x48: { name: 'ESME_RINVSRCTON', failure: 'permanent' },
  0x49: { name: 'ESME_RINVSRCNPI', failure: 'permanent' },
  0x50: { name: 'ESME_RINVDSTTON', failure: 'undeliverable' },
  0x51: { name: 'ESME_RINVDSTNPI', failure: 'undeliverable' },
  0x53: { name: 'ESME_RINVSYSTYP', failure: 'permanent' },
  0x58: { name: 'ESME_RTHROTTLED', failure: 'throttled' },
  0x61: { name: 'ESME_RINVSCHED', failure: 'permanent' },
  0x62: { name: 'ESME_RINVEXPIRY', failure: 'permanent' },
  0x64: { name: 'ESME_RX_T_APPN', failure: 'temporary' },
  0x65: { name: 'ESME_RX_P_APPN', failure: 'permanent' },
  0x66: { name: 'ESME_RX_R_APPN', failure: 'permanent' },
  0xfe: { name: 'ESME_RDELIVERYFAILURE', failure: 'undeliverable' },
  0xff: { name: 'ESME_RUNKNOWNERR', failure: 'temporary' },
};

/** The failure class and a readable error of an SMPP `command_status`. */
export function smppFailure(
  status: number,
  overrides: Readonly<Record<number, FailureClass>> = {},
): { failure: FailureClass; error: string } {
  const known = SMPP_ERRORS[status];
  const hex = `0x${status.toString(16).padStart(8, '0')}`;
  return {
    failure: overrides[status] ?? known?.failure ?? 'permanent',
    error: known ? `${known.name} (${hex})` : `SMSC error ${hex}`,
  };
}

/** What a delivery receipt's final state means; `null` for states that are not final. */
export type ReceiptState = Pick<Receipt, 'outcome' | 'failure'> | null;

/**
 * Delivery receipt states, as `stat:` of the receipt text (SMPP 3.4 appendix B) or as the
 * `message_state` TLV (0x0427), mapped to receipt outcomes.
 */
export function receiptState(state: string | number): ReceiptState {
  const name = (typeof state === 'number' ? MESSAGE_STATES[state] : state.toUpperCase()) ?? 'UNKNOWN';
  switch (name) {
    case 'DELIVRD':
      return { outcome: 'delivered' };
    case 'EXPIRED':
    case 'UNDELIV':
      return { outcome: 'failed', failure: 'undeliverable' };
    case 'DELETED':
    case 'REJECTD':
      return { outcome: 'failed', failure: 'permanent' };
    default:
      // ENROUTE, ACCEPTD, UNKNOWN: not final; the step's timer decides if nothing follows.
      return null;
  }
}

const MESSAGE_STATES: Record<number, string> = {
  1: 'ENROUTE',
  2: 'DELIVRD',
  3: 'EXPIRED',
  4: 'DELETED',
  5: 'UNDELIV',
  6: 'ACCEPTD',
  7: 'UNKNOWN',
  8: 'REJECTD',
};

/** Parses the SMPP 3.4 appendix B receipt text: `id:... sub:... dlvrd:... stat:DELIVRD err:000 text:...`. */
export function parseReceiptText(text: string): { id?: string; stat?: string; err?: string } {
  const out: { id?: string; stat?: string; err?: string } = {};
  for (const m of text.matchAll(/\b(id|stat|err):(\S*)/gi)) {
    const key = m[1]!.toLowerCase() as 'id' | 'stat' | 'err';
    out[key] ??= m[2]!;
  }
  return out;
}

/**
 * One form for an SMSC message id that the SMSC writes in hex in one place and in decimal in
 * another (`submit_sm_resp` versus the receipt text, Kannel's `msg-id-type`): the decimal digits of
 * its value. An id that is not a number in the stated base is kept as it is.
 *
 * @example canonicalSmscId('A0001', true) // '655361'
 */
export function canonicalSmscId(id: string, hex: boolean): string {
  const clean = id.trim();
  if (hex ? /^[0-9a-f]{1,32}$/i.test(clean) : /^\d{1,40}$/.test(clean)) return BigInt(hex ? `0x${clean}` : clean).toString(10);
  return clean;
}
