/** The six channels a message can travel on. */
export const CHANNELS = ['messenger', 'chatapp_bot', 'chatapp', 'rcs', 'sms', 'flashcall'] as const;
/** One of {@link CHANNELS}: `messenger`, `chatapp_bot`, `chatapp`, `rcs`, `sms` or `flashcall`. */
export type ChannelId = (typeof CHANNELS)[number];

/** Message types of the messaging API (interface 2.1.1). */
export const MESSAGE_TYPES = [
  'sms',
  'chatapp_service',
  'chatapp_trans',
  'chatapp_promo',
  'chatapp_carousel',
  'chatapp_survey',
  'chatapp_otp',
  'chatapp_session',
  'flashcall_callback',
  'flashcall',
  'rcs',
] as const;
/** One of {@link MESSAGE_TYPES}: the `type` of a message of the messaging API (`sms`, `chatapp_service`, ...). */
export type MessageType = (typeof MESSAGE_TYPES)[number];

/** The channel that carries a messaging API type. */
export function channelOfType(type: MessageType): ChannelId {
  if (type === 'sms') return 'sms';
  if (type === 'rcs') return 'rcs';
  if (type === 'flashcall' || type === 'flashcall_callback') return 'flashcall';
  return 'chatapp';
}

/**
 * How a failed attempt failed. `throttled` and `temporary` are retried on the same channel;
 * `not_on_channel` and `undeliverable` move on as undeliverable; `permanent` as a permanent error.
 */
export type FailureClass = 'throttled' | 'temporary' | 'not_on_channel' | 'undeliverable' | 'permanent';
