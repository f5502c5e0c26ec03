import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { classifyAddress } from '../webhooks/address-class.ts';

/** Why an upstream call did not give an answer to relay. */
export class UpstreamError extends Error {
  override readonly name = 'UpstreamError';
  constructor(
    readonly kind: 'refused' | 'timeout' | 'too_large' | 'unreachable',
    message: string,
  ) {
    super(message);
  }
}

export interface UpstreamResponse {
  status: number;
  contentType: string | null;
  body: Uint8Array;
}

/**
 * Calls an upstream URL the guarded way: http(s) only; its host (resolved) must be a public
 * address unless `allowPrivate`; no redirects followed; a time limit; an answer size limit.
 */
export async function upstreamFetch(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string | undefined },
  limits: { allowPrivate: boolean; timeoutMs: number; maxBytes: number },
): Promise<UpstreamResponse> {
  const target = new URL(url);
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    throw new UpstreamError('refused', `${target.protocol} URLs are refused`);
  if (!limits.allowPrivate) {
    const host = target.hostname.replace(/^\[|\]$/g, '');
    const addresses = isIP(host) ? [host] : (await lookup(host, { all: true }).catch(() => [])).map((a) => a.address);
    if (addresses.length === 0) throw new UpstreamError('unreachable', `cannot resolve ${host}`);
    const bad = addresses.find((a) => classifyAddress(a) !== 'public');
    if (bad) throw new UpstreamError('refused', `${host} is a non-public address (${bad})`);
  }
  let res: Response;
  try {
    res = await fetch(target, { ...init, redirect: 'manual', signal: AbortSignal.timeout(limits.timeoutMs) });
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') throw new UpstreamError('timeout', `no answer within ${limits.timeoutMs} ms`);
    throw new UpstreamError('unreachable', (error as Error).message);
  }
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > limits.maxBytes) {
    await res.body?.cancel();
    throw new UpstreamError('too_large', `the answer exceeds ${limits.maxBytes} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body?.getReader();
  try {
    for (;;) {
      if (!reader) break;
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limits.maxBytes) {
        await reader.cancel();
        throw new UpstreamError('too_large', `the answer exceeds ${limits.maxBytes} bytes`);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof UpstreamError) throw error;
    if ((error as Error).name === 'TimeoutError') throw new UpstreamError('timeout', `no answer within ${limits.timeoutMs} ms`);
    throw new UpstreamError('unreachable', (error as Error).message);
  }
  return { status: res.status, contentType: res.headers.get('content-type'), body: Buffer.concat(chunks) };
}
