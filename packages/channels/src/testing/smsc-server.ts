import smpp from 'smpp';
import type { PDU, Session } from 'smpp';
import type { AddressInfo } from 'node:net';

/** A `submit_sm` the test SMSC took, decoded. */
export interface Submitted {
  messageId: string;
  from: string;
  to: string;
  dataCoding: number;
  esmClass: number;
  text: string;
  udh: Buffer | null;
  sar: { ref: number; total: number; seq: number } | null;
  /** `validity_period` as the ESME wrote it (`000001000000000R`), or null when empty. */
  validityPeriod: string | null;
}

// The `smpp` package decodes a relative `validity_period` into a Date counted from the moment of
// decoding; the test SMSC keeps the text the ESME sent. Only an SMSC decodes `submit_sm`: the
// drivers, which encode it, are unaffected.
type FieldDefs = Record<string, { filter?: object }>;
const submitSmParams = (smpp as unknown as { commands: Record<string, { params: FieldDefs }> }).commands['submit_sm']!.params;
submitSmParams['validity_period'] = {
  ...submitSmParams['validity_period'],
  filter: { ...submitSmParams['validity_period']!.filter, decode: (value: unknown) => value },
};

/**
 * An SMSC for tests, on the `smpp` package's server: binds transceivers, answers `submit_sm` and
 * sends delivery receipts as `deliver_sm`, retried on the next bind until acknowledged (as an SMSC
 * does). What happens depends on the recipient's last two digits: `58` ESME_RTHROTTLED, `14`
 * ESME_RMSGQFUL, `11` ESME_RINVDSTADR, `02` an UNDELIV receipt, `04` no receipt, `12` DELIVRD for
 * the first part of a long message and UNDELIV for the others; anything else is
 * DELIVRD after `receiptDelayMs`.
 */
export interface TestSmsc {
  port: number;
  binds: number;
  /** Binds asked for, refused ones included. */
  bindAttempts: number;
  enquireLinks: number;
  submitted: Submitted[];
  /** While true, binds are refused with ESME_RBINDFAIL. */
  refuseBinds: boolean;
  /** Drops every connection, as a network failure would. */
  dropAll(): void;
  /** Sends an MO message to the bound ESME. */
  deliverMo(from: string, to: string, text: string): void;
  /**
   * Sends a `deliver_sm` with these fields (a part of a long MO: `esm_class` 0x40 and a raw
   * `short_message` Buffer holding the UDH, or the `sar_*` TLVs), retried like the others.
   */
  deliver(fields: Record<string, unknown>): void;
  /** Delivers again what the ESME answered with an error (an SMSC's retry, without waiting for one). */
  retryDeliveries(): void;
  /** The `command_status` of every `deliver_sm_resp`, in the order they came. */
  answers: number[];
  /** `deliver_sm` not acknowledged yet (answered with an error, in flight, or waiting for a bind). */
  readonly unacknowledged: number;
  close(): Promise<void>;
}

interface PendingReceipt {
  fields: Record<string, unknown>;
  on: Session | null;
}

export async function startTestSmsc(options: {
  systemId: string;
  password: string;
  /** The port to listen on (an SMSC started again where it was). @default a free one */
  port?: number;
  /** Refuse binds from the start (see `TestSmsc.refuseBinds`). @default false */
  refuseBinds?: boolean;
  receiptDelayMs?: number;
  /**
   * `hex-then-decimal`: `submit_sm_resp` answers a hex id and the receipt names it in decimal in its
   * text only (no `receipted_message_id`), as SMSCs of Kannel's `msg-id-type` 0x01 do.
   * @default 'text': `smsc-N` ids, the same in both and in the TLV
   */
  ids?: 'text' | 'hex-then-decimal';
}): Promise<TestSmsc> {
  const delay = options.receiptDelayMs ?? 50;
  const bound = new Set<Session>();
  const queue: PendingReceipt[] = [];
  let nextId = 1;

  const flush = () => {
    const target = [...bound][0];
    if (!target) return;
    for (const r of queue) {
      if (r.on) continue;
      r.on = target;
      target.deliver_sm(r.fields, (resp) => {
        state.answers.push(resp.command_status);
        if (resp.command_status === 0) queue.splice(queue.indexOf(r), 1);
        else r.on = null;
      });
    }
  };

  const state: TestSmsc = {
    port: 0,
    binds: 0,
    bindAttempts: 0,
    enquireLinks: 0,
    submitted: [],
    answers: [],
    refuseBinds: options.refuseBinds ?? false,
    dropAll() {
      for (const s of server.sessions) s.destroy();
    },
    deliverMo(from, to, text) {
      queue.push({ fields: { source_addr: from, destination_addr: to, esm_class: 0, data_coding: 0, short_message: text }, on: null });
      flush();
    },
    deliver(fields) {
      queue.push({ fields, on: null });
      flush();
    },
    retryDeliveries: () => flush(),
    get unacknowledged() {
      return queue.length;
    },
    close: () =>
      new Promise<void>((resolve) => {
        state.dropAll();
        server.close(() => resolve());
      }),
  };

  const hexIds = options.ids === 'hex-then-decimal';
  const receipt = (submitId: string, submitted: Submitted, stat: 'DELIVRD' | 'UNDELIV') => {
    const id = hexIds ? BigInt(`0x${submitId}`).toString(10) : submitId;
    const text = `id:${id} sub:001 dlvrd:${stat === 'DELIVRD' ? '001' : '000'} submit date:2601010000 done date:2601010000 stat:${stat} err:${stat === 'DELIVRD' ? '000' : '001'} text:`;
    queue.push({
      fields: {
        source_addr: submitted.to,
        destination_addr: submitted.from,
        esm_class: 0x04,
        short_message: text,
        ...(hexIds ? {} : { receipted_message_id: id }),
        message_state: stat === 'DELIVRD' ? 2 : 5,
      },
      on: null,
    });
    flush();
  };

  const server = smpp.createServer((session) => {
    session.on('bind_transceiver', (pdu: PDU) => {
      state.bindAttempts++;
      if (state.refuseBinds || pdu['system_id'] !== options.systemId || pdu['password'] !== options.password) {
        session.send(pdu.response({ command_status: smpp.errors['ESME_RBINDFAIL'] }));
        return;
      }
      session.send(pdu.response({ system_id: 'test-smsc' }));
      state.binds++;
      bound.add(session);
      flush();
    });
    session.on('enquire_link', (pdu: PDU) => {
      state.enquireLinks++;
      session.send(pdu.response());
    });
    session.on('unbind', (pdu: PDU) => {
      bound.delete(session);
      session.send(pdu.response());
    });
    session.on('submit_sm', (pdu: PDU) => {
      const to = String(pdu['destination_addr']);
      const refusal = { '58': 'ESME_RTHROTTLED', '14': 'ESME_RMSGQFUL', '11': 'ESME_RINVDSTADR' }[to.slice(-2)];
      if (refusal) {
        session.send(pdu.response({ command_status: smpp.errors[refusal] }));
        return;
      }
      const messageId = hexIds ? (0xa0000 + nextId++).toString(16).toUpperCase() : `smsc-${nextId++}`;
      const sm = (pdu['message_payload'] ?? pdu['short_message']) as { message?: string | Buffer; udh?: Buffer[] } | undefined;
      const submitted: Submitted = {
        messageId,
        from: String(pdu['source_addr']),
        to,
        dataCoding: Number(pdu['data_coding']),
        esmClass: Number(pdu['esm_class']),
        text: typeof sm?.message === 'string' ? sm.message : (sm?.message?.toString() ?? ''),
        udh: sm?.udh?.[0] ?? null,
        sar:
          pdu['sar_msg_ref_num'] !== undefined
            ? { ref: Number(pdu['sar_msg_ref_num']), total: Number(pdu['sar_total_segments']), seq: Number(pdu['sar_segment_seqnum']) }
            : null,
        validityPeriod: typeof pdu['validity_period'] === 'string' && pdu['validity_period'] !== '' ? pdu['validity_period'] : null,
      };
      state.submitted.push(submitted);
      session.send(pdu.response({ message_id: messageId }));
      const outcome = to.slice(-2);
      // 12: the first part of a long message is delivered, the later parts are not.
      const laterPart = (submitted.udh?.[4] ?? submitted.sar?.seq ?? 1) > 1;
      const undelivered = outcome === '02' || (outcome === '12' && laterPart);
      if (outcome !== '04') setTimeout(() => receipt(messageId, submitted, undelivered ? 'UNDELIV' : 'DELIVRD'), delay);
    });
    session.on('close', () => {
      bound.delete(session);
      // Receipts sent on this connection and not acknowledged go out again on the next bind.
      for (const r of queue) if (r.on === session) r.on = null;
    });
    session.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  state.port = (server.address() as AddressInfo).port;
  return state;
}
