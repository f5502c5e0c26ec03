import { z } from 'zod';
import { UpstreamError, upstreamFetch } from './upstream-fetch.ts';

/**
 * What the token endpoint made of an authorization code. `refused`: it answered that the code (or
 * the client) is not good (a 4xx of RFC 6749 section 5.2, `invalid_grant` and the like): a code is
 * single-use and a refused one stays refused, so the authorization must start again. `failed`: no
 * verdict on the code (no answer, a time-out, a 5xx, 408 or 429, an answer that is no token): the
 * same code may still be exchanged, so the authorization stays usable for a retry.
 */
export type CodeExchange =
  | { outcome: 'token'; accessToken: string; expiresIn: number | undefined }
  | { outcome: 'refused'; message: string }
  | { outcome: 'failed'; message: string; timeout: boolean };

const tokenAnswer = z.looseObject({ access_token: z.string().min(1), expires_in: z.coerce.number().positive().optional() });

/** The error of a refusal: RFC 6749 `{ error, error_description }`, or the Graph API's `{ error: { message, code } }`. */
const errorAnswer = z.looseObject({
  error: z.union([
    z.string(),
    z.looseObject({ message: z.string().optional(), type: z.string().optional(), code: z.union([z.number(), z.string()]).optional() }),
  ]),
  error_description: z.string().optional(),
});

/** Statuses of the 4xx range that say "not now" rather than "not this code". */
const TRANSIENT_4XX = new Set([408, 429]);

/** How much of the platform's own explanation of a refusal is passed on. */
const MAX_REASON = 200;

function parseJson(body: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    return undefined;
  }
}

/** `invalid_grant: Code was already redeemed.` from the refusal's body, or '' when it says nothing readable. */
function reasonOf(body: unknown): string {
  const parsed = errorAnswer.safeParse(body);
  if (!parsed.success) return '';
  const { error, error_description: description } = parsed.data;
  const reason =
    typeof error === 'string'
      ? [error, description].filter(Boolean).join(': ')
      : [error.type, error.code === undefined ? undefined : `code ${error.code}`, error.message].filter(Boolean).join(', ');
  return reason.length > MAX_REASON ? `${reason.slice(0, MAX_REASON)}…` : reason;
}

/**
 * Exchanges an authorization code at the token endpoint (RFC 6749 section 4.1.3: a form POST
 * of `grant_type=authorization_code`, the code and the client's credentials) the guarded way of
 * {@link upstreamFetch}, and says what came of it.
 */
export async function exchangeCode(
  tokenUrl: string,
  form: URLSearchParams,
  limits: { allowPrivate: boolean; timeoutMs: number },
): Promise<CodeExchange> {
  let answer;
  try {
    answer = await upstreamFetch(
      tokenUrl,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form.toString(),
      },
      { ...limits, maxBytes: 64 * 1024 },
    );
  } catch (error) {
    // Nothing came back, or nothing usable: the code may never have reached the platform.
    if (error instanceof UpstreamError) return { outcome: 'failed', message: error.message, timeout: error.kind === 'timeout' };
    throw error;
  }
  const body = parseJson(answer.body);
  if (answer.status >= 400 && answer.status < 500 && !TRANSIENT_4XX.has(answer.status)) {
    const reason = reasonOf(body);
    return { outcome: 'refused', message: `HTTP ${answer.status}${reason ? `, ${reason}` : ''}` };
  }
  const token = answer.status === 200 ? tokenAnswer.safeParse(body) : undefined;
  if (token?.success) return { outcome: 'token', accessToken: token.data.access_token, expiresIn: token.data.expires_in };
  const what = answer.status === 200 ? 'HTTP 200 without an access_token' : `HTTP ${answer.status}`;
  return { outcome: 'failed', message: `the token endpoint answered ${what}`, timeout: false };
}
