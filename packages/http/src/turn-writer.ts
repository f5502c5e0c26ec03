import type { ServerResponse } from 'node:http';

/** Ends `res` with `body` (its head already written with `writeHead`). */
export type EndResponse = (res: ServerResponse, body: string) => void;

/**
 * Ends responses together, once the current turn of the event loop has run its I/O callbacks
 * (`setImmediate`), in the order they were answered, instead of one by one as each request is
 * answered: the answers of the requests a turn read go out as one burst of writes.
 *
 * Each write on a loopback socket wakes the client if it sleeps waiting for it. Answered one by
 * one while the turn still reads requests, every answer wakes it again (it takes an answer much
 * faster than the server makes one, and sleeps in between); the wake-up is paid by the writing
 * thread in the kernel, and the woken client, put on the writer's core, preempts it. Written
 * together, the first write wakes the client and the others find it awake: status reads through
 * the reference server took about half the HTTP thread's CPU a read (`docs/decisions.md`, "Speed,
 * eleventh pass").
 *
 * A response that cannot be ended (its socket gone meanwhile) is reported to `onError`, with the
 * response (its request names the method and path), and the others are ended all the same.
 */
export function createTurnWriter(onError: (error: unknown, res: ServerResponse) => void): EndResponse {
  let pending: Array<readonly [ServerResponse, string]> = [];
  const flush = () => {
    const answers = pending;
    pending = [];
    for (const [res, body] of answers) {
      try {
        res.end(body);
      } catch (error) {
        onError(error, res);
      }
    }
  };
  return (res, body) => {
    if (pending.push([res, body]) === 1) setImmediate(flush);
  };
}
