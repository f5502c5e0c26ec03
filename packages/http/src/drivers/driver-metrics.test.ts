import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { ChannelDriver } from '@spillway/core';
import { createDriverMetrics } from './driver-metrics.ts';

const driver = (name: string, members?: ChannelDriver[]): ChannelDriver =>
  Object.assign({ name, channels: ['sms' as const], send: async () => ({ outcome: 'accepted' as const }) }, members ? { members } : {});

describe('driver metrics', () => {
  it("gauges binds and breakers, every failover's provider from closed, and counts refused incoming messages", async () => {
    const registry = new Registry();
    const metrics = createDriverMetrics(registry, [driver('sms-failover', [driver('smsc'), driver('kannel')]), driver('hook')]);
    const series = async () => (await registry.metrics()).split('\n').filter((l) => /^spillway_(driver|breaker|inbound)/.test(l));
    expect(await series()).toEqual([
      'spillway_breaker_state{failover="sms-failover",driver="smsc"} 0',
      'spillway_breaker_state{failover="sms-failover",driver="kannel"} 0',
    ]);
    metrics.record([
      { type: 'link', driver: 'smsc', link: 'SMPP bind', up: true, reason: 'bound' },
      { type: 'link', driver: 'smsc', link: 'SMPP bind', up: false, reason: 'gone' },
      { type: 'breaker', driver: 'sms-failover', provider: 'smsc', channels: ['sms'], state: 'open', reason: 'down' },
      { type: 'inbound-refused', driver: 'smsc', channel: 'sms', address: 'Nobody', reason: 'no_owner', error: 'no account' },
      { type: 'inbound-refused', driver: 'smsc', channel: 'sms', address: 'Other', reason: 'no_owner', error: 'no account' },
    ]);
    expect(await series()).toEqual([
      'spillway_driver_up{driver="smsc"} 0',
      'spillway_breaker_state{failover="sms-failover",driver="smsc"} 2',
      'spillway_breaker_state{failover="sms-failover",driver="kannel"} 0',
      'spillway_inbound_refused_total{driver="smsc",reason="no_owner"} 2',
    ]);
    // A second set on the same registry (a workers' thread's events) adds to the same series.
    createDriverMetrics(registry).record([
      { type: 'breaker', driver: 'sms-failover', provider: 'smsc', channels: ['sms'], state: 'half-open', reason: '' },
    ]);
    expect(await series()).toContain('spillway_breaker_state{failover="sms-failover",driver="smsc"} 1');
  });
});
