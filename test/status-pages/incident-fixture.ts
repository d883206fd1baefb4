import type { Incident } from '../../src/status-pages/incidents/schema'
import { type Caller, ok } from '../helpers/http'

export type { Incident }

/** Opens an incident through statusPages.incidents.create (a minor one, with a message, unless told). */
export function openIncident(admin: Caller, fields: Record<string, unknown> & { statusPageId: string }) {
  return ok<Incident>(
    'statusPages.incidents.create',
    { title: 'Slow responses', impact: 'minor', message: 'We are investigating.', ...fields },
    admin,
  )
}
