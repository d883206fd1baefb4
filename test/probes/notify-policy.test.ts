import { describe, expect, it } from 'vitest'
import { changeNotification, notifyMessages, reminderNotification } from '../../src/notifications/probes/jobs'
import {
  decideOnChange,
  decideOnRepeat,
  EMPTY_NOTIFY_MEMORY,
  type NotifyMemory,
  nextRepeatAt,
} from '../../src/notifications/probes/policy'
import { NotifyConfigSchema, type ProbeNotifyConfig } from '../../src/probes/config'
import type { MonitorSnapshot, ProbeState } from '../../src/probes/monitor/api'

const MIN = 60_000

function config(overrides: Partial<ProbeNotifyConfig> = {}): ProbeNotifyConfig {
  return NotifyConfigSchema.parse(overrides)
}

/** One step of a probe's life: a displayed-state change at minute `at`, or a reminder alarm at minute `at`. */
type Step = [from: ProbeState, to: ProbeState, at: number] | ['repeat', at: number]

/** Runs the steps through the policy and returns, per step, whether it notified; also the final memory. */
function play(settings: ProbeNotifyConfig, steps: Step[], start: NotifyMemory = EMPTY_NOTIFY_MEMORY) {
  let memory = start
  const sent: boolean[] = []
  for (const step of steps) {
    const decision =
      step[0] === 'repeat'
        ? decideOnRepeat(memory, step[1] * MIN, settings)
        : decideOnChange(memory, { from: step[0], to: step[1], at: step[2] * MIN, result: null }, settings)
    memory = decision.memory
    sent.push(decision.notify)
  }
  return { sent, memory }
}

describe('decideOnChange: which changes notify', () => {
  const free = config({ cooldownSeconds: 0, maxPerHour: 60 })
  const table: [ProbeState, ProbeState, boolean][] = [
    ['up', 'down', true],
    ['degraded', 'down', true],
    ['flapping', 'down', true],
    // A heartbeat never pinged (or a resumed probe failing at once) goes down from paused: an incident.
    ['paused', 'down', true],
    ['down', 'up', true],
    ['degraded', 'up', true],
    ['flapping', 'up', true],
    // The first good result of a new or resumed probe is no news.
    ['paused', 'up', false],
    ['up', 'degraded', true],
    ['down', 'degraded', true],
    ['paused', 'degraded', true],
    ['up', 'flapping', true],
    ['down', 'flapping', true],
    // Pausing and archiving are the operator's own acts.
    ['up', 'paused', false],
    ['down', 'paused', false],
    ['flapping', 'paused', false],
    ['up', 'up', false],
  ]
  for (const [from, to, notify] of table) {
    it(`should ${notify ? '' : 'not '}notify ${from} → ${to}`, () => {
      expect(play(free, [[from, to, 0]]).sent).toEqual([notify])
    })
  }

  it('should leave the memory untouched when nothing changes and not mutate the memory it is given', () => {
    const before = play(free, [['up', 'down', 0]]).memory
    const frozen = JSON.parse(JSON.stringify(before)) as NotifyMemory
    const decision = decideOnChange(before, { from: 'down', to: 'down', at: MIN, result: null }, free)
    expect(decision).toEqual({ notify: false, memory: before })
    decideOnChange(before, { from: 'down', to: 'up', at: MIN, result: null }, free)
    expect(before).toEqual(frozen)
  })
})

describe('decideOnChange: cooldown', () => {
  const settings = config({ cooldownSeconds: 300, maxPerHour: 60 })

  it('should hold back a change inside the cooldown after the last notification, and send one at its end', () => {
    const { sent } = play(settings, [
      ['up', 'degraded', 0],
      ['degraded', 'down', 1],
      ['down', 'degraded', 4.99],
      ['degraded', 'down', 5],
    ])
    expect(sent).toEqual([true, false, false, true])
  })

  it('should always send the all-clear of a notified problem, and nothing for a problem it never announced', () => {
    const { sent } = play(settings, [
      ['up', 'down', 0],
      // Inside the cooldown, but the operator was told "down": "up" must follow.
      ['down', 'up', 1],
      // Held back by the cooldown, so never announced ...
      ['up', 'down', 2],
      // ... and its recovery is no news either: the last message already said "up".
      ['down', 'up', 3],
    ])
    expect(sent).toEqual([true, true, false, false])
  })

  it('should send the all-clear after a notified degraded or flapping state as well', () => {
    expect(
      play(settings, [
        ['up', 'degraded', 0],
        ['degraded', 'down', 1],
        ['down', 'up', 2],
      ]).sent,
    ).toEqual([true, false, true])
    expect(
      play(settings, [
        ['up', 'flapping', 0],
        ['flapping', 'up', 1],
      ]).sent,
    ).toEqual([true, true])
  })

  it('should notify entering flapping once, even inside the cooldown, then its all-clear', () => {
    const { sent } = play(settings, [
      ['up', 'down', 0],
      ['down', 'up', 1],
      ['up', 'down', 2],
      ['down', 'flapping', 3],
      // The DO does not ask about changes while flapping; the probe settles half an hour later.
      ['flapping', 'up', 40],
    ])
    expect(sent).toEqual([true, true, false, true, true])
  })

  it('should forget what it announced when the probe is paused', () => {
    const { sent } = play(settings, [
      ['up', 'down', 0],
      ['down', 'paused', 1],
      ['paused', 'up', 2],
      ['up', 'down', 3],
      ['down', 'up', 4],
    ])
    expect(sent).toEqual([true, false, false, false, false])
  })
})

describe('decideOnChange: maxPerHour over a sliding 60 minutes', () => {
  const settings = config({ cooldownSeconds: 0, maxPerHour: 3 })

  it('should send at most maxPerHour problems in any 60 minutes and make room as old ones leave the window', () => {
    const { sent, memory } = play(settings, [
      ['up', 'down', 0],
      ['down', 'degraded', 10],
      ['degraded', 'down', 20],
      ['down', 'degraded', 30],
      ['degraded', 'down', 59.99],
      // The one sent at minute 0 has left the window.
      ['down', 'degraded', 60],
      ['degraded', 'down', 65],
      // Minutes 10 and 20 have left; 60 remains.
      ['down', 'degraded', 80],
    ])
    expect(sent).toEqual([true, true, true, false, false, true, false, true])
    expect(memory.sentAt).toEqual([60 * MIN, 80 * MIN])
  })

  it('should still send the all-clear of a notified problem when the hour is full (at most maxPerHour + 1)', () => {
    const { sent } = play(config({ cooldownSeconds: 0, maxPerHour: 1 }), [
      ['up', 'down', 0],
      ['down', 'up', 5],
      ['up', 'down', 10],
      ['down', 'up', 15],
    ])
    expect(sent).toEqual([true, true, false, false])
  })

  it('should hold any 60 minutes of constant changes to maxPerHour + 1 and keep only the last hour', () => {
    const steps: Step[] = []
    for (let minute = 0; minute < 180; minute++)
      steps.push(minute % 2 === 0 ? ['up', 'degraded', minute] : ['degraded', 'up', minute])
    const { sent, memory } = play(config({ cooldownSeconds: 0, maxPerHour: 5 }), steps)
    const sentAt = steps.flatMap((step, i) => (sent[i] && step[0] !== 'repeat' ? [step[2]] : []))
    for (let end = 0; end < 180; end++)
      expect(sentAt.filter((at) => at > end - 60 && at <= end).length).toBeLessThanOrEqual(6)
    expect(sentAt.length).toBeGreaterThan(12)
    expect(memory.sentAt.every((at) => at > 119 * MIN)).toBe(true)
  })
})

describe('downSince', () => {
  const settings = config({ cooldownSeconds: 0 })

  it('should start when the probe enters down, hold while down, and clear when it leaves', () => {
    expect(play(settings, [['up', 'down', 3]]).memory.downSince).toBe(3 * MIN)
    expect(
      play(settings, [
        ['up', 'down', 3],
        ['down', 'up', 9],
      ]).memory.downSince,
    ).toBeNull()
    expect(
      play(settings, [
        ['up', 'down', 3],
        ['down', 'flapping', 5],
        ['flapping', 'down', 50],
      ]).memory.downSince,
    ).toBe(50 * MIN)
    expect(
      play(settings, [
        ['up', 'down', 3],
        ['down', 'paused', 5],
      ]).memory.downSince,
    ).toBeNull()
  })

  it('should start even when the down change was held back', () => {
    const { sent, memory } = play(config({ cooldownSeconds: 600 }), [
      ['up', 'degraded', 0],
      ['degraded', 'down', 2],
    ])
    expect(sent).toEqual([true, false])
    expect(memory.downSince).toBe(2 * MIN)
  })
})

describe('repeat while down', () => {
  it('should schedule no reminder when repeats are off or the probe is not down', () => {
    const off = config({ repeatWhileDownMinutes: 0 })
    const on = config({ repeatWhileDownMinutes: 30 })
    const down = play(on, [['up', 'down', 0]]).memory
    expect(nextRepeatAt(down, 'down', off)).toBeNull()
    expect(nextRepeatAt(down, 'up', on)).toBeNull()
    expect(nextRepeatAt(EMPTY_NOTIFY_MEMORY, 'down', on)).toBeNull()
    expect(decideOnRepeat(down, 60 * MIN, off)).toEqual({ notify: false, memory: down })
  })

  it('should remind every cadence from the start of the episode, once per due time', () => {
    const settings = config({ repeatWhileDownMinutes: 30, cooldownSeconds: 300 })
    let { memory } = play(settings, [['up', 'down', 0]])
    expect(nextRepeatAt(memory, 'down', settings)).toBe(30 * MIN)
    // An alarm that fires early is not a reminder.
    expect(decideOnRepeat(memory, 29 * MIN, settings)).toEqual({ notify: false, memory })
    const first = decideOnRepeat(memory, 30 * MIN, settings)
    expect(first.notify).toBe(true)
    memory = first.memory
    expect(nextRepeatAt(memory, 'down', settings)).toBe(60 * MIN)
    // The same alarm run twice reminds once.
    expect(decideOnRepeat(memory, 30 * MIN, settings).notify).toBe(false)
    const recovered = decideOnChange(memory, { from: 'down', to: 'up', at: 45 * MIN, result: null }, settings)
    expect(recovered.notify).toBe(true)
    expect(nextRepeatAt(recovered.memory, 'up', settings)).toBeNull()
    expect(decideOnRepeat(recovered.memory, 60 * MIN, settings).notify).toBe(false)
  })

  it('should count reminders against maxPerHour and skip, not postpone, one held back', () => {
    const settings = config({ repeatWhileDownMinutes: 10, cooldownSeconds: 0, maxPerHour: 2 })
    const { sent, memory } = play(settings, [
      ['up', 'down', 0],
      ['repeat', 10],
      ['repeat', 20],
      ['repeat', 30],
      ['repeat', 60],
    ])
    expect(sent).toEqual([true, true, false, false, true])
    expect(nextRepeatAt(memory, 'down', settings)).toBe(70 * MIN)
  })

  it('should hold a reminder inside the cooldown back, and remind from downSince when the down was held back', () => {
    const settings = config({ repeatWhileDownMinutes: 5, cooldownSeconds: 600 })
    expect(
      play(settings, [
        ['up', 'down', 0],
        ['repeat', 5],
        ['repeat', 10],
      ]).sent,
    ).toEqual([true, false, true])
    const held = play(settings, [
      ['up', 'degraded', 0],
      ['degraded', 'down', 1],
    ])
    expect(held.sent).toEqual([true, false])
    expect(nextRepeatAt(held.memory, 'down', settings)).toBe(6 * MIN)
    expect(decideOnRepeat(held.memory, 11 * MIN, settings).notify).toBe(true)
  })
})

describe('notifyMessages and the notification payload', () => {
  function snapshot(notify: Partial<ProbeNotifyConfig>): MonitorSnapshot {
    return {
      id: 'p1',
      name: 'shop health',
      type: 'http',
      targetKind: 'site',
      targetId: 's1',
      target: 'https://shop.example.test/health',
      enabled: true,
      archived: false,
      config: { failureThreshold: 3 } as MonitorSnapshot['config'],
      notifyConfig: config(notify),
      hasWebhookSecret: true,
      heartbeatTokenHash: null,
      version: 1,
    }
  }
  const result = {
    at: '2026-11-20T10:00:00.000Z',
    outcome: 'down' as const,
    latencyMs: null,
    detail: 'HTTP 503',
  }
  const down = { from: 'up' as const, to: 'down' as const, at: Date.parse(result.at), result }

  it('should queue one message per target: the webhook when set, then each distinct email', () => {
    const probe = snapshot({
      webhookUrl: 'https://hooks.example.test/p',
      emails: ['a@example.test', 'b@example.test', 'a@example.test'],
    })
    const notification = changeNotification(probe, down, EMPTY_NOTIFY_MEMORY)
    expect(notifyMessages(probe, notification)).toEqual([
      { type: 'probe.notify', probeId: 'p1', target: 'webhook', notification },
      { type: 'probe.notify', probeId: 'p1', target: 'email:a@example.test', notification },
      { type: 'probe.notify', probeId: 'p1', target: 'email:b@example.test', notification },
    ])
    expect(
      notifyMessages(snapshot({ emails: ['a@example.test'] }), notification).map((m) => m.target),
    ).toEqual(['email:a@example.test'])
    expect(notifyMessages(snapshot({}), notification)).toEqual([])
  })

  it('should describe the probe, both states, the result and when the down episode began', () => {
    const probe = snapshot({})
    const notified = decideOnChange(EMPTY_NOTIFY_MEMORY, down, probe.notifyConfig)
    expect(changeNotification(probe, down, EMPTY_NOTIFY_MEMORY)).toEqual({
      event: 'probe.state_changed',
      probe: {
        id: 'p1',
        name: 'shop health',
        type: 'http',
        targetKind: 'site',
        targetId: 's1',
        target: 'https://shop.example.test/health',
      },
      previousState: 'up',
      state: 'down',
      at: '2026-11-20T10:00:00.000Z',
      result,
      downSince: '2026-11-20T10:00:00.000Z',
    })
    const recovery = { from: 'down' as const, to: 'up' as const, at: down.at + 7 * MIN, result: null }
    expect(changeNotification(probe, recovery, notified.memory).downSince).toBe('2026-11-20T10:00:00.000Z')
    const degraded = { from: 'up' as const, to: 'degraded' as const, at: down.at, result }
    expect(changeNotification(probe, degraded, EMPTY_NOTIFY_MEMORY).downSince).toBeNull()
    expect(reminderNotification(probe, notified.memory, down.at + 30 * MIN, result)).toMatchObject({
      event: 'probe.still_down',
      previousState: 'down',
      state: 'down',
      at: '2026-11-20T10:30:00.000Z',
      downSince: '2026-11-20T10:00:00.000Z',
    })
  })
})
