import { maintenanceWindows } from '../../src/db/schema/maintenance'
import { statusPageWebhooks } from '../../src/db/schema/status-page-subscribers'
import { statusPageIncidents, statusPages } from '../../src/db/schema/status-pages'
import { createProbe } from '../probes/catalogue-fixture'
import { asArray, cloneRow, field, ids, insertEach, type SeedContext, TIED_TIMES } from './seed-kit'

/** Probes, status pages with their webhooks and incidents, and maintenance windows. */
export async function seedMonitoringLists({ admin, now, tag, newest }: SeedContext): Promise<void> {
  const probe = await createProbe(admin, { name: `base ${tag}` })
  const probeIds = ids('probe')
  await cloneRow(
    'probes',
    { column: 'id', value: probe.id },
    probeIds.map((id, i) => ({
      id,
      name: `walk ${tag} ${i}`,
      heartbeat_token_hash: null,
      next_check_at: null,
      created_at: TIED_TIMES[i],
    })),
  )
  newest('probes.list', probeIds, {
    input: { search: `walk ${tag} ` },
    exclusive: true,
    shape: 'array',
    rowsOf: asArray,
  })

  const pageIds = ids('status-page')
  await insertEach(
    statusPages,
    pageIds.map((id, i) => ({
      id,
      slug: `lists-${id}`,
      title: `lists ${i}`,
      groups: [],
      public: false,
      createdAt: new Date(TIED_TIMES[i] ?? 0),
      updatedAt: now,
    })),
  )
  newest('statusPages.list', pageIds, { shape: 'object', rowsOf: field('statusPages') })
  const hookIds = ids('status-page-webhook')
  await insertEach(
    statusPageWebhooks,
    hookIds.map((id, i) => ({
      id,
      statusPageId: pageIds[0] ?? '',
      url: `https://hooks.example.com/lists-${i}`,
      secretSealed: 'v1.sealed',
      origin: 'https://panel.test',
      createdAt: new Date(TIED_TIMES[i] ?? 0),
    })),
  )
  newest('statusPages.webhooks.list', hookIds, {
    input: { statusPageId: pageIds[0] },
    exclusive: true,
    shape: 'object',
    rowsOf: field('webhooks'),
  })

  const incidentIds = ids('incident')
  await insertEach(
    statusPageIncidents,
    incidentIds.map((id, i) => ({
      id,
      statusPageId: pageIds[0] ?? '',
      title: `lists ${i}`,
      impact: 'minor' as const,
      state: 'investigating' as const,
      probeIds: [],
      automatic: false,
      createdAt: new Date(TIED_TIMES[i] ?? 0),
      updatedAt: now,
      resolvedAt: null,
    })),
  )
  newest('statusPages.incidents.list', incidentIds, {
    input: { statusPageId: pageIds[0] },
    exclusive: true,
    shape: 'object',
    rowsOf: field('incidents'),
  })

  const windowIds = ids('maintenance')
  await insertEach(
    maintenanceWindows,
    windowIds.map((id, i) => ({
      id,
      title: `lists ${i}`,
      schedule: {
        kind: 'weekly' as const,
        days: ['sun' as const],
        startTime: '03:00',
        durationMinutes: 60,
        timezone: 'UTC',
      },
      endsAt: null,
      createdAt: new Date(TIED_TIMES[i] ?? 0),
      updatedAt: now,
    })),
  )
  newest('maintenance.list', windowIds, { shape: 'object', rowsOf: field('windows') })
}
