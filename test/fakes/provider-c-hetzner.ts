import {
  apiPath,
  createAnswer,
  type DnsFake,
  type FakeOptions,
  type FakeRecord,
  type FakeZone,
  intParam,
  json,
  randomHex,
} from './dns-fake'

// Hetzner Cloud API (DNS) wire format, as hcloud-go and lego's hetznerv1 client read it: `Authorization: Bearer`
// with a 64-character project token; errors as `{ error: { code, message, details } }` with string codes;
// lists as `{ zones | rrsets, meta: { pagination } }` (null `next_page` on the last page, at most 50 a page);
// numeric zone ids; records grouped in RRSets (`{ id: "name/TYPE", name, type, ttl, records: [{ value }] }`),
// listed with an exact `name` filter and addressed by zone, relative name (`@` at the apex) and type, changed
// through `add_records` / `remove_records` actions that finish later (poll `GET /actions/{id}`); TXT values
// quoted, CNAME values absolute; 429 with `RateLimit-Limit/Remaining/Reset` (Reset a Unix time).
function apiError(status: number, code: string, message: string, headers: Record<string, string> = {}) {
  return json({ error: { code, message, details: {} } }, status, headers)
}

interface FakeAction {
  id: number
  command: string
  zoneId: string
  status: 'running' | 'success' | 'error'
  error: { code: string; message: string } | null
}

export interface HetznerFake extends DnsFake {
  /** Actions report `running` until polled this many times (0: they finish before the answer). */
  actionPolls: number
  /** When set, the next record action ends in `error` with this message. */
  failNextAction: string | null
  readonly actions: FakeAction[]
}

const TXT_VALUE = /^"(?:[^"\\]|\\.)*"(?: "(?:[^"\\]|\\.)*")*$/

function pagination(page: number, perPage: number, total: number) {
  const last = Math.max(1, Math.ceil(total / perPage))
  return {
    page,
    per_page: perPage,
    previous_page: page > 1 ? page - 1 : null,
    next_page: page < last ? page + 1 : null,
    last_page: last,
    total_entries: total,
  }
}

// The records grouped into RRSets (relative name and type), in the order their first value came.
function rrsetsOf(records: FakeRecord[], zone: FakeZone) {
  const sets = new Map<string, FakeRecord[]>()
  for (const record of records) {
    const id = `${record.name}/${record.type}`
    sets.set(id, [...(sets.get(id) ?? []), record])
  }
  return [...sets].map(([id, values]) => ({
    id,
    name: values[0]?.name,
    type: values[0]?.type,
    ttl: values[0]?.ttl ?? null,
    labels: {},
    protection: { change: false },
    records: values.map((r) => ({ value: r.content, comment: '' })),
    zone: Number(zone.id),
  }))
}

/** A fake of the Hetzner Cloud API's DNS (zones, RRSet actions, actions) for provider_c. */
export function hetznerFake(options: FakeOptions = {}): HetznerFake {
  const origin = options.origin ?? 'https://api.hetzner.cloud'
  const basePath = options.basePath ?? '/v1'
  const token = options.token ?? randomHex(32)
  const pageCap = options.pageCap ?? 2
  const zones: FakeZone[] = []
  const records: FakeRecord[] = []
  const actions: FakeAction[] = []
  const polls = new Map<number, number>()
  let nextZoneId = 100_000 + Math.floor(Math.random() * 1000)

  const actionBody = (action: FakeAction) => ({
    action: {
      id: action.id,
      command: action.command,
      status: action.status,
      progress: action.status === 'running' ? 0 : 100,
      started: new Date().toISOString(),
      finished: action.status === 'running' ? null : new Date().toISOString(),
      resources: [{ id: Number(action.zoneId), type: 'zone' }],
      error: action.error,
    },
  })

  // `now`: the change is applied before the answer whatever actionPolls says (an answer about to be lost).
  const startAction = (command: string, zoneId: string, apply: () => void, now = false): Response => {
    const failure = fake.failNextAction
    fake.failNextAction = null
    const action: FakeAction = {
      id: actions.length + 1,
      command,
      zoneId,
      status: 'running',
      error: null,
    }
    actions.push(action)
    polls.set(action.id, fake.actionPolls)
    const finish = () => {
      if (failure) {
        action.status = 'error'
        action.error = { code: 'action_failed', message: failure }
      } else {
        apply()
        action.status = 'success'
      }
    }
    if (fake.actionPolls === 0 || now) finish()
    else pendingFinish.set(action.id, finish)
    return json(actionBody(action), 201)
  }
  const pendingFinish = new Map<number, () => void>()

  const fake: HetznerFake = {
    origin,
    apiBaseUrl: `${origin}${basePath}`,
    token,
    zones,
    records,
    actions,
    rateLimitRetryAfter: null,
    loseNextCreateAnswer: false,
    actionPolls: 1,
    failNextAction: null,
    addZone(name) {
      const zone = { id: String(nextZoneId++), name }
      zones.push(zone)
      return zone
    },
    addRecord(zone, record) {
      const added = { id: `${record.name}/${record.type}/${record.content}`, zoneId: zone.id, ...record }
      records.push(added)
      return added
    },
    async handle(request) {
      const path = apiPath(request, basePath)
      if (path === null) return apiError(404, 'not_found', 'not found')
      if (fake.rateLimitRetryAfter !== null) {
        return apiError(429, 'rate_limit_exceeded', 'limit of 3600 requests per hour reached', {
          'ratelimit-limit': '3600',
          'ratelimit-remaining': '0',
          'ratelimit-reset': String(Math.floor(Date.now() / 1000) + fake.rateLimitRetryAfter),
        })
      }
      if (request.headers.get('authorization') !== `Bearer ${token}`) {
        return apiError(401, 'unauthorized', 'unable to authenticate')
      }
      const url = new URL(request.url)

      if (request.method === 'GET' && path === '/zones') {
        const perPage = Math.min(intParam(url, 'per_page', 25), 50, pageCap)
        const page = intParam(url, 'page', 1)
        return json({
          zones: zones.slice((page - 1) * perPage, page * perPage).map((zone) => ({
            id: Number(zone.id),
            name: zone.name,
            created: '2026-01-01T00:00:00+00:00',
            mode: 'primary',
            ttl: 3600,
            labels: {},
            protection: { delete: false },
            status: 'ok',
            record_count: records.filter((r) => r.zoneId === zone.id).length,
            registrar: 'other',
          })),
          meta: { pagination: pagination(page, perPage, zones.length) },
        })
      }
      const rrsetsPath = path.match(/^\/zones\/([^/]+)\/rrsets$/)
      if (request.method === 'GET' && rrsetsPath) {
        const zone = zones.find((z) => z.id === rrsetsPath[1] || z.name === rrsetsPath[1])
        if (!zone) return apiError(404, 'not_found', `zone with ID '${rrsetsPath[1]}' not found`)
        // `name` matches exactly the RRSet's relative name (`@` at the apex).
        const name = url.searchParams.get('name')
        const sets = rrsetsOf(
          records.filter((r) => r.zoneId === zone.id && (name === null || r.name === name)),
          zone,
        )
        const perPage = Math.min(intParam(url, 'per_page', 25), 50, pageCap)
        const page = intParam(url, 'page', 1)
        return json({
          rrsets: sets.slice((page - 1) * perPage, page * perPage),
          meta: { pagination: pagination(page, perPage, sets.length) },
        })
      }
      const actionPath = path.match(/^\/actions\/(\d+)$/)
      if (request.method === 'GET' && actionPath) {
        const action = actions.find((a) => a.id === Number(actionPath[1]))
        if (!action) return apiError(404, 'not_found', `action with ID '${actionPath[1]}' not found`)
        const left = (polls.get(action.id) ?? 0) - 1
        polls.set(action.id, left)
        if (left <= 0) {
          pendingFinish.get(action.id)?.()
          pendingFinish.delete(action.id)
        }
        return json(actionBody(action))
      }
      const rrsetAction = path.match(
        /^\/zones\/([^/]+)\/rrsets\/([^/]+)\/([A-Z]+)\/actions\/(add|remove)_records$/,
      )
      if (request.method !== 'POST' || !rrsetAction) return apiError(404, 'not_found', 'not found')
      const [, idOrName, rawName, type, verb] = rrsetAction
      const zone = zones.find((z) => z.id === idOrName || z.name === idOrName)
      if (!zone) return apiError(404, 'not_found', `zone with ID '${idOrName}' not found`)
      const name = decodeURIComponent(rawName ?? '')
      const body = (await request.json()) as { ttl?: number; records: { value: string }[] }
      const values = body.records.map((r) => r.value)
      const rrset = records.filter((r) => r.zoneId === zone.id && r.name === name && r.type === type)

      if (verb === 'add') {
        const ttl = body.ttl ?? 3600
        if (ttl < 60)
          return apiError(422, 'invalid_input', "invalid input in field 'ttl': must be at least 60")
        for (const value of values) {
          if (type === 'TXT' && !TXT_VALUE.test(value)) {
            return apiError(
              422,
              'invalid_input',
              "invalid input in field 'records': TXT value must be quoted",
            )
          }
          if (type === 'CNAME' && !value.endsWith('.')) {
            return apiError(422, 'invalid_input', "invalid input in field 'records': must be a FQDN")
          }
        }
        if (rrset.length > 0 && rrset[0]?.ttl !== ttl) {
          return apiError(422, 'invalid_input', "invalid input in field 'ttl': must match the RRSet's TTL")
        }
        const answer = startAction(
          'add_rrset_records',
          zone.id,
          () => {
            for (const value of values) {
              if (rrset.some((r) => r.content === value)) continue
              fake.addRecord(zone, { type: type ?? '', name, content: value, ttl })
            }
          },
          fake.loseNextCreateAnswer,
        )
        return createAnswer(fake, answer)
      }
      if (rrset.length === 0)
        return apiError(404, 'not_found', `rrset with name '${name}' and type '${type}' not found`)
      return startAction('remove_rrset_records', zone.id, () => {
        for (const value of values) {
          const index = records.findIndex(
            (r) => r.zoneId === zone.id && r.name === name && r.type === type && r.content === value,
          )
          if (index >= 0) records.splice(index, 1)
        }
      })
    },
  }
  return fake
}
