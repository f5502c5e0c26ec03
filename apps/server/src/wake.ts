/**
 * Wakes the workers' thread at most once every `ms`: under a stream of single sends each commit
 * asks for a wake-up, and one message a millisecond serves them all (the thread's rounds gather
 * for 2 ms anyway). A wake-up asked for within the interval is sent at its end, never dropped.
 */
export function wakeAtMostEveryMs(ms: number, post: () => void): () => void {
  let last = Number.NEGATIVE_INFINITY;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const send = () => {
    timer = null;
    last = performance.now();
    post();
  };
  return () => {
    if (timer) return;
    const wait = last + ms - performance.now();
    if (wait <= 0) send();
    else timer = setTimeout(send, wait).unref();
  };
}
