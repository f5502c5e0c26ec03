import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Account, Engine, RateCategory } from '@spillway/core';
import type { RateLimiter } from '@spillway/core/adapter';
import type { SendMessagesInput } from '@spillway/core';
import { authCacheKey, readCredentials } from './auth.ts';
import type { AuthCache } from './auth-cache.ts';
import type { HttpLogger } from './env.ts';
import { errorAnswer } from './error-handler.ts';
import type { HttpMetrics } from './metrics.ts';
import { rateLimitHeaders } from './rate-limit.ts';
import { declaredBodyLength, isJsonContentType, parseJsonBody, utf8Text } from './read-json.ts';
import { plainMessageId, SEND_ROUTE, STATUS_ROUTE } from './routes/messaging.ts';
import { HEALTH_ROUTE, healthBody } from './routes/system.ts';
import { createTurnWriter, type EndResponse } from './turn-writer.ts';

/**
 * A Node request listener for the API's hottest routes, in front of the Hono app: it takes a
 * request only when it can answer exactly as the app would, and otherwise calls `next` (perhaps
 * after an await) having read nothing of the body and written nothing, so that the app answers.
 * `path` is the request target below the mount point (`req.url` by default).
 */
export type DirectRoutes = (req: IncomingMessage, res: ServerResponse, next: () => void, path?: string) => void;

/** What the direct routes share with the app they stand in front of (`createHttpApp` builds both). */
export interface DirectRoutesDeps {
  engine: Engine;
  authCache: AuthCache;
  rateLimiter: RateLimiter;
  /** Null when the app counts no requests. */
  metrics: Pick<HttpMetrics, 'record'> | null;
  logger: HttpLogger;
  maxBodyBytes: number;
  /** Answers the sends elsewhere (`HttpOptions.sendsElsewhere`) instead of with `engine`. */
  sendsElsewhere?: SendsElsewhere | undefined;
  /** The live workers as last counted, for `/health` (`HttpOptions.liveWorkers`). */
  liveWorkers?: (() => number | undefined) | undefined;
}

/** A send's answer as the send route writes it: its status, JSON body text, and `Retry-After` for a busy database. */
export interface SendAnswer {
  status: number;
  body: string;
  retryAfter?: string | undefined;
}

/**
 * Answers the body of a send (`POST /bat/messagelist`, as text) for an account, as the send route
 * would: another thread's {@link answerSend}, where the one writer of acceptances runs.
 */
export type SendsElsewhere = (accountId: number, body: string) => Promise<SendAnswer>;

/**
 * The answer of the send route to `body` (the request's text) for an account: parsed, sent with
 * `engine`, and answered as the route answers, errors included. The direct route runs it, and so
 * does a thread that takes the sends of others ({@link SendsElsewhere}).
 */
export async function answerSend(
  deps: { engine: Engine; logger: HttpLogger },
  accountId: number,
  body: string,
  path = SEND_ROUTE,
): Promise<SendAnswer> {
  try {
    const sent = await deps.engine.messages.send(accountId, parseJsonBody(body) as SendMessagesInput);
    return { status: 200, body: JSON.stringify(sent) };
  } catch (error) {
    const { body: failure, retryAfter } = errorAnswer(error, { logger: deps.logger, method: 'POST', path, storage: deps.engine.storage });
    return { status: failure.status, body: JSON.stringify(failure), retryAfter };
  }
}

const STATUS_PREFIX = STATUS_ROUTE.slice(0, STATUS_ROUTE.indexOf(':'));

/** A route's answer made already (status and text), where a route usually answers a value to write as JSON with 200. */
class Answered {
  constructor(readonly answer: SendAnswer) {}
}

/** Thrown by {@link readBody} when the client went away: nobody is left to answer. */
class ClientGone extends Error {}

/**
 * A request header as a web `Headers` object would give it: every value of a repeated header,
 * joined with `, ` (Node's `req.headers` keeps only the first of some, like `Authorization`).
 */
function headerOf(req: IncomingMessage, name: string): string | null {
  const values = req.headersDistinct[name];
  return values === undefined ? null : values.join(', ');
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => {
      try {
        resolve(utf8Text(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
      } catch (error) {
        reject(error);
      }
    });
    req.once('error', () => reject(new ClientGone()));
    req.once('close', () => {
      if (!req.complete) reject(new ClientGone());
    });
  });
}

/**
 * The direct routes of `POST /bat/messagelist` (single and bulk sends), `GET /bat/message/{id}`
 * (status reads) and `GET /health` (the liveness probe, asked often under load): the same
 * authentication (a hit of the app's auth cache), rate limit, body checks, engine call, JSON
 * answers, errors and metrics as the app's routes, but without building the web `Request`, Hono's
 * context, router match and middleware chain, and the web `Response` that `@hono/node-server`
 * converts back: about a third of the HTTP thread's CPU for a single send, and most of `/health`'s
 * (`docs/decisions.md`, "Speed, seventh pass"). Status reads and `/health` are answered in the
 * turn that read them but written with the turn's other answers ({@link createTurnWriter}); sends
 * are written as their group of acceptances commits, which is already one burst a group.
 *
 * Everything else goes to the app, and so does every request these routes would answer with
 * anything but their own result or an error of the engine: no, unknown or uncached credentials
 * (the app authenticates and caches them), a refused rate limit, another content type, a body
 * without a Content-Length or over the limit, a malformed message id, a query string.
 */
export function createDirectRoutes(deps: DirectRoutesDeps): DirectRoutes {
  const { engine, authCache, rateLimiter, metrics, logger, maxBodyBytes, sendsElsewhere, liveWorkers } = deps;
  const headers = (req: IncomingMessage) => ({ get: (name: string) => headerOf(req, name) });

  /** The account of a cached authentication, else null (the app then authenticates). */
  async function cachedAccount(req: IncomingMessage): Promise<Account | null> {
    const credentials = readCredentials(headers(req));
    if (!credentials) return null;
    const key = authCacheKey(credentials);
    try {
      return authCache.get(key, await authCache.revision()) ?? null;
    } catch {
      return null;
    }
  }

  /**
   * Takes a token of `category`: the answer's `RateLimit-*` headers as a flat list, or null when
   * refused (the app refuses it again, with its 429).
   */
  function admit(account: Account, category: RateCategory): string[] | null {
    const limit = rateLimiter.limitFor(category, account.rateLimits);
    const decision = rateLimiter.take(`${category}:${account.id}`, limit);
    return decision.allowed ? rateLimitHeaders(decision, limit) : null;
  }

  /** Logs an answer that could not be written (its socket gone meanwhile), with its request's method and path. */
  const failedToAnswer = (error: unknown, method: string | undefined, path: string | undefined) =>
    logger.error('direct route failed to answer', { method, path, error: String(error) });
  /** Ends a response at once. */
  const endNow: EndResponse = (res, body) => res.end(body);
  /** Ends a response with the other answers of the turn (status reads, `/health`). */
  const endWithTurn = createTurnWriter((error, res) => failedToAnswer(error, res.req.method, res.req.url));

  /**
   * Writes the answer with `head` (a flat list of header names and values) in one `writeHead`,
   * and ends the response with `end`.
   */
  function answer(
    req: IncomingMessage,
    res: ServerResponse,
    route: string,
    started: number,
    status: number,
    body: unknown,
    head: string[],
    end: EndResponse,
  ): void {
    answerText(req, res, route, started, status, JSON.stringify(body), head, end);
  }

  /** {@link answer} with its body already JSON text. */
  function answerText(
    req: IncomingMessage,
    res: ServerResponse,
    route: string,
    started: number,
    status: number,
    text: string,
    head: string[],
    end: EndResponse,
  ): void {
    head.push('Content-Type', 'application/json', 'Content-Length', String(Buffer.byteLength(text)));
    res.writeHead(status, head);
    end(res, text);
    metrics?.record(req.method!, route, status, (performance.now() - started) / 1000);
  }

  async function serve(
    req: IncomingMessage,
    res: ServerResponse,
    next: () => void,
    path: string,
    route: string,
    category: RateCategory,
    handle: (account: Account) => Promise<unknown>,
    end: EndResponse,
  ): Promise<void> {
    // Wall time, as the app's metrics middleware counts it.
    const started = performance.now();
    const account = await cachedAccount(req);
    const head = account ? admit(account, category) : null;
    if (!account || !head) {
      next();
      return;
    }
    try {
      const result = await handle(account);
      if (result instanceof Answered) {
        if (result.answer.retryAfter) head.push('Retry-After', result.answer.retryAfter);
        answerText(req, res, route, started, result.answer.status, result.answer.body, head, end);
      } else answer(req, res, route, started, 200, result, head, end);
    } catch (error) {
      if (error instanceof ClientGone) return;
      const { body, retryAfter } = errorAnswer(error, { logger, method: req.method!, path, storage: engine.storage });
      if (retryAfter) head.push('Retry-After', retryAfter);
      answer(req, res, route, started, body.status, body, head, end);
    }
  }

  /** Runs a route; a failure to write the answer itself (a socket gone meanwhile) is logged, never thrown. */
  function run(route: Promise<void>, req: IncomingMessage, path: string): void {
    route.catch((error: unknown) => failedToAnswer(error, req.method, path));
  }

  return (req, res, next, path = req.url ?? '') => {
    if (req.method === 'POST' && path === SEND_ROUTE) {
      // The app's body limit and content type checks, before anything is read or counted.
      const length = declaredBodyLength(headerOf(req, 'content-length'), 'transfer-encoding' in req.headers);
      if (length === null || length > maxBodyBytes || !isJsonContentType(headerOf(req, 'content-type'))) return next();
      // Answered here, or by the thread that writes acceptances; as text, either way.
      const send = async (account: Account) => {
        const body = await readBody(req);
        return new Answered(await (sendsElsewhere ? sendsElsewhere(account.id, body) : answerSend(deps, account.id, body, path)));
      };
      // Written at once: the group commit's answers are already one burst (see above).
      run(serve(req, res, next, path, SEND_ROUTE, 'messaging', send, endNow), req, path);
      return;
    }
    if (req.method === 'GET' && path === HEALTH_ROUTE) {
      // A count kept, not read per request: /health is asked often under load.
      answer(req, res, HEALTH_ROUTE, performance.now(), 200, healthBody(liveWorkers?.()), [], endWithTurn);
      return;
    }
    if (req.method === 'GET' && path.startsWith(STATUS_PREFIX)) {
      const id = plainMessageId(path.slice(STATUS_PREFIX.length));
      if (id === undefined) return next();
      const status = (account: Account) => engine.messages.status(account.id, id, account.currency);
      run(serve(req, res, next, path, STATUS_ROUTE, 'data', status, endWithTurn), req, path);
      return;
    }
    next();
  };
}
