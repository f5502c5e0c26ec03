import type { Clock, TimerHandle } from '../clock.ts';

interface Deadline {
  at: number;
  expire: (() => void) | undefined;
}

/**
 * The deadlines of the sends a worker has handed to its drivers, kept on one clock timer.
 *
 * Every send gets the same time to answer, so deadlines come in the order the sends were made:
 * they wait in a queue, and the one timer is set for the first still waiting. A send that
 * answers only marks its deadline done; the timer, when it fires, expires what has fallen due,
 * skips what is done and is set again for the next. A timer and a promise a send (as before)
 * cost the workers' thread more than the send to the simulator itself.
 *
 * Should the clock step back, a deadline queued behind a later one expires with it, late by the
 * step at most.
 */
export class SendDeadlines {
  private queue: Deadline[] = [];
  private head = 0;
  /** Deadlines in the queue not yet done or expired. */
  private live = 0;
  private timer: TimerHandle | undefined;

  constructor(
    private readonly clock: Clock,
    /** How long a send may take. */
    readonly ms: number,
  ) {}

  /**
   * Calls `expire` once {@link ms} have passed on the clock, unless the function answered is
   * called first (the send answered). Calling it after the expiry, or twice, does nothing.
   */
  watch(expire: () => void): () => void {
    const deadline: Deadline = { at: this.clock.now() + this.ms, expire };
    this.queue.push(deadline);
    this.live++;
    if (this.timer === undefined) this.arm(deadline.at);
    return () => {
      if (deadline.expire === undefined) return;
      deadline.expire = undefined;
      this.live--;
      this.tidy();
    };
  }

  /** How many sends are being watched. */
  get size(): number {
    return this.live;
  }

  private arm(at: number): void {
    this.timer = this.clock.setTimeout(() => this.fire(), Math.max(0, at - this.clock.now()));
  }

  private fire(): void {
    this.timer = undefined;
    const now = this.clock.now();
    const due: Array<() => void> = [];
    while (this.head < this.queue.length) {
      const first = this.queue[this.head]!;
      if (first.expire !== undefined) {
        if (first.at > now) break;
        due.push(first.expire);
        first.expire = undefined;
        this.live--;
      }
      this.head++;
    }
    this.tidy();
    if (this.head < this.queue.length) this.arm(this.queue[this.head]!.at);
    for (const expire of due) expire();
  }

  /**
   * Drops the done deadlines at the head of the queue, and lets go of the ones behind a send that
   * is slow to answer once they outnumber the live ones, so that the queue stays the size of the
   * sends in flight. The timer is left set: firing early, it finds nothing due and is set again.
   */
  private tidy(): void {
    while (this.head < this.queue.length && this.queue[this.head]!.expire === undefined) this.head++;
    if (this.live === 0) {
      this.queue = [];
      this.head = 0;
      if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
      this.timer = undefined;
    } else if (this.queue.length - this.head > 1024 && this.queue.length - this.head > 4 * this.live) {
      this.queue = this.queue.filter((d, i) => i >= this.head && d.expire !== undefined);
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }
}
