// The `smpp` package ships no types: the part of its API the driver and its test server use.
declare module 'smpp' {
  import type { EventEmitter } from 'node:events';
  import type { Server as NetServer, Socket } from 'node:net';

  export class PDU {
    /** A PDU to send, or (given its octets) one read from the wire. */
    constructor(command: string | Buffer, options?: Record<string, unknown>);
    command: string;
    command_status: number;
    sequence_number: number;
    [field: string]: unknown;
    response(options?: Record<string, unknown>): PDU;
    isResponse(): boolean;
    toBuffer(): Buffer;
  }
  export interface Session extends EventEmitter {
    socket: Socket;
    send(pdu: PDU, onResponse?: (pdu: PDU) => void): boolean;
    close(callback?: () => void): void;
    destroy(callback?: () => void): void;
    bind_transceiver(options: Record<string, unknown>, onResponse?: (pdu: PDU) => void): boolean;
    submit_sm(options: Record<string, unknown>, onResponse?: (pdu: PDU) => void): boolean;
    deliver_sm(options: Record<string, unknown>, onResponse?: (pdu: PDU) => void): boolean;
    enquire_link(options?: Record<string, unknown>, onResponse?: (pdu: PDU) => void): boolean;
    unbind(options?: Record<string, unknown>, onResponse?: (pdu: PDU) => void): boolean;
  }
  export interface Server extends NetServer {
    sessions: Session[];
  }
  const smpp: {
    connect(options: { host: string; port: number; tls?: boolean }, listener?: () => void): Session;
    createServer(listener: (session: Session) => void): Server;
    PDU: typeof PDU;
    errors: Record<string, number>;
    /** GSM 03.38, one septet per octet; `table` is a national language table (0: the default alphabet). */
    gsmCoder: { encode(text: string, table?: number): Buffer; decode(septets: Buffer, table?: number): string };
  };
  export default smpp;
}
