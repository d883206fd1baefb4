import { type Caller, ok } from '../helpers/http'

export interface MaintenanceWindow {
  id: string
  title: string
  schedule: Record<string, unknown>
  probeIds: string[]
  statusPageIds: string[]
  active: boolean
  opening: { startsAt: string; endsAt: string } | null
  createdAt: string
  updatedAt: string
}

const HOUR_MS = 3_600_000

/** A one-off schedule from `from` (ms) for `hours`. */
export const once = (from: number, hours = 1) => ({
  kind: 'once',
  startsAt: new Date(from).toISOString(),
  endsAt: new Date(from + hours * HOUR_MS).toISOString(),
})

/** Creates a maintenance window through maintenance.create. */
export function createWindow(admin: Caller, fields: Record<string, unknown>): Promise<MaintenanceWindow> {
  return ok<MaintenanceWindow>('maintenance.create', { title: 'Database upgrade', ...fields }, admin)
}
