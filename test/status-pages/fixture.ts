import { type Caller, ok } from '../helpers/http'
import { createProbe } from '../probes/catalogue-fixture'

export interface StatusPage {
  id: string
  slug: string
  title: string
  description: string | null
  groups: { name: string; probes: { probeId: string; displayName: string }[] }[]
  public: boolean
  autoIncidents: boolean
  url: string
  createdAt: string
  updatedAt: string
}

/** A disabled external http probe (no check runs, so its state is the test's to set). */
export const quietProbe = (admin: Caller, fields: Record<string, unknown> = {}) =>
  createProbe(admin, { enabled: false, ...fields })

export const uniqueSlug = (prefix = 'page') => `${prefix}-${crypto.randomUUID().slice(0, 8)}`

/** Creates a status page through statusPages.create. */
export function createStatusPage(admin: Caller, fields: Record<string, unknown> = {}): Promise<StatusPage> {
  return ok<StatusPage>(
    'statusPages.create',
    { slug: uniqueSlug(), title: 'Example status', ...fields },
    admin,
  )
}
