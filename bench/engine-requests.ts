/** A send request of `batch` SMS messages from the alpha-name `Bench`, texts salted to differ. */
export function request(batch: number, salt: string, extra: Record<string, unknown> = {}) {
  return {
    messages: Array.from({ length: batch }, (_, i) => ({
      from: 'Bench',
      to: `4915${String(10_000_000 + i).padStart(8, '0')}`,
      text: `Your code is ${salt}-${i}`,
      type: 'sms' as const,
      ...extra,
    })),
  };
}
