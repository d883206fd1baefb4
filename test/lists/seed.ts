import { siteWithToken } from '../custom-hostnames/fixture'
import type { Caller } from '../helpers/http'
import { seedAccessLists } from './seed-access'
import { seedChangelogLists } from './seed-changelog'
import { seedDnsLists } from './seed-dns'
import { seedFleetLists } from './seed-fleet'
import { seedHostingLists } from './seed-hosting'
import { inOrder, type ListCase, type SeedContext, tiedOrder } from './seed-kit'
import { seedMonitoringLists } from './seed-monitoring'
import { seedOperationsLists } from './seed-operations'

export { cloneRow, FUTURE, type ListCase } from './seed-kit'

/** Seeds seven rows for every list procedure and says how each list must page them. */
export async function seedLists(admin: Caller): Promise<Record<string, ListCase>> {
  const cases: Record<string, ListCase> = {}
  const context: SeedContext = {
    admin,
    site: await siteWithToken(admin),
    now: new Date(),
    tag: crypto.randomUUID().slice(0, 8),
    cases,
    newest: (name, rows, rest) => {
      cases[name] = {
        input: {},
        caller: admin,
        expected: inOrder(rows, tiedOrder),
        exclusive: false,
        ...rest,
      }
    },
  }
  await seedAccessLists(context)
  await seedFleetLists(context)
  await seedChangelogLists(context)
  await seedDnsLists(context)
  await seedHostingLists(context)
  await seedMonitoringLists(context)
  await seedOperationsLists(context)
  return cases
}
