import { channelDeliveries, channels } from '../../src/db/schema/channels'
import { failedJobs } from '../../src/db/schema/jobs'
import { operationalDeliveries } from '../../src/db/schema/notifications'
import { field, insertEach, type SeedContext, TIED_TIMES } from './seed-kit'

/** Failed jobs, operational deliveries, notification channels and their deliveries. */
export async function seedOperationsLists({ admin, site, cases }: SeedContext): Promise<void> {
  // Lists ordered by a time and then the id: ties run by id, highest first.
  const byTimeThenId = (rows: { id: string; at: number }[]) =>
    [...rows].sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).map((row) => row.id)
  const jobRows = TIED_TIMES.map((at) => ({ id: `walk-job-${crypto.randomUUID()}`, at }))
  await insertEach(
    failedJobs,
    jobRows.map(({ id, at }) => ({
      id,
      kind: 'route.reconcile',
      body: { type: 'route.reconcile', nodeId: site.nodeId },
      target: 'node walk',
      targetKind: 'node',
      targetId: site.nodeId,
      state: 'dead' as const,
      attempts: 18,
      retries: 0,
      lastError: 'agent answered 502',
      firstAttemptAt: new Date(at),
      lastAttemptAt: new Date(at),
    })),
  )
  cases['jobs.list'] = {
    input: { state: 'dead' },
    caller: admin,
    expected: byTimeThenId(jobRows),
    exclusive: false,
    shape: 'object',
    rowsOf: field('jobs'),
  }
  const deliveryRows = TIED_TIMES.map((at) => ({ id: crypto.randomUUID(), at }))
  await insertEach(
    operationalDeliveries,
    deliveryRows.map(({ id, at }) => ({
      id,
      notificationId: id,
      eventKey: 'node:walk',
      kind: 'node.unhealthy' as const,
      event: 'raised' as const,
      channel: 'email' as const,
      target: 'walk@ops.example.com',
      payload: JSON.stringify({ subject: 'walk' }),
      status: 'delivered' as const,
      attempts: 1,
      answer: null,
      createdAt: new Date(at),
      lastAttemptAt: new Date(at),
    })),
  )
  cases['settings.notifications.deliveries'] = {
    input: {},
    caller: admin,
    expected: byTimeThenId(deliveryRows),
    exclusive: false,
    shape: 'object',
    rowsOf: field('deliveries'),
  }

  const channelRows = TIED_TIMES.map((at) => ({ id: crypto.randomUUID(), at }))
  await insertEach(
    channels,
    channelRows.map(({ id, at }) => ({
      id,
      name: `walk channel ${id}`,
      kind: 'email' as const,
      settings: { recipients: ['walk@channels.example.com'] },
      secretSealed: null,
      hint: '1 recipient',
      apiBaseUrl: null,
      createdAt: new Date(at),
      updatedAt: new Date(at),
    })),
  )
  cases['notifications.channels.list'] = {
    input: {},
    caller: admin,
    expected: byTimeThenId(channelRows),
    exclusive: false,
    shape: 'object',
    rowsOf: field('channels'),
  }
  const channelId = channelRows[0]?.id ?? ''
  const channelDeliveryRows = TIED_TIMES.map((at) => ({ id: crypto.randomUUID(), at }))
  await insertEach(
    channelDeliveries,
    channelDeliveryRows.map(({ id, at }) => ({
      id,
      channelId,
      probeId: null,
      event: 'test',
      title: 'walk',
      status: 'delivered' as const,
      attempts: 1,
      answer: 'accepted',
      createdAt: new Date(at),
      lastAttemptAt: new Date(at),
    })),
  )
  cases['notifications.channels.deliveries'] = {
    input: { id: channelId },
    caller: admin,
    expected: byTimeThenId(channelDeliveryRows),
    exclusive: true,
    shape: 'object',
    rowsOf: field('deliveries'),
  }
}
