import type { ChannelId } from '@spillway/core';

/** How the designer names each channel. */
export const CHANNEL_NAMES: Record<ChannelId, string> = {
  messenger: 'Messenger bot',
  chatapp_bot: 'Chat-app bot',
  chatapp: 'Chat-app business',
  rcs: 'RCS',
  sms: 'SMS',
  flashcall: 'Flash call',
};

/** Channels where a step may require an open chat session. */
export const SESSION_CHANNELS: ReadonlySet<ChannelId> = new Set(['messenger', 'chatapp_bot', 'chatapp', 'rcs']);
