import { alertEmail } from '../probes/email'
import type { ProbeNotification } from '../probes/jobs'
import type { ChannelMessage } from './message'

/** A probe notification as every channel renders it: the alert email's words, the webhook's JSON body. */
export function probeChannelMessage(notification: ProbeNotification): ChannelMessage {
  const { subject, text } = alertEmail(notification)
  const { event, probe, previousState, state, at, result, downSince } = notification
  return {
    level: state === 'up' ? 'recovery' : 'problem',
    severity: state === 'up' ? 'info' : state === 'down' ? 'critical' : 'warning',
    title: subject,
    text,
    dedupKey: `probe-${probe.id}`,
    source: probe.target,
    body: JSON.stringify({ event, probe, previousState, state, at, result, downSince }),
  }
}

/** The test button's message. */
export function testChannelMessage(channel: { id: string; name: string }, origin: string): ChannelMessage {
  const title = `[TEST] ${channel.name}`
  const text = `A test message from the hosting panel at ${origin}: this channel is set up.`
  return {
    level: 'test',
    severity: 'info',
    title,
    text,
    dedupKey: `test-${channel.id}`,
    source: origin,
    body: JSON.stringify({ event: 'channel.test', channel, at: new Date().toISOString(), text }),
  }
}
