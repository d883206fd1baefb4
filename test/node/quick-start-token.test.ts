import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { PERMISSIONS } from '../../src/auth/permissions'
import { procedures } from '../../src/rpc/registry'

// The token the README's quick start and the `npm start` banner mint must carry what the tour after it calls: the
// first five minutes, then routes, domains, custom hostnames, probes and status pages. A token too narrow answers
// 403 at the next section (the operator trial of 2026-11-28).

const root = path.join(import.meta.dirname, '../..')
const readme = readFileSync(path.join(root, 'README.md'), 'utf8')
const start = readFileSync(path.join(root, 'scripts/start.mjs'), 'utf8')

/** What the README walks a newcomer through after minting the token. */
const TOUR = [
  'nodes.create',
  'instances.create',
  'sites.create',
  'audit.list',
  'changelog.releases.create',
  'changelog.releases.publish',
  'routes.createRaw',
  'routes.listForSite',
  'domains.attach',
  'domains.list',
  'customHostnames.register',
  'customHostnames.list',
  'probes.create',
  'probes.list',
  'statusPages.create',
  'notifications.channels.create',
]

/** The permissions of the first tokens.create call's JSON body after `after` in `text`. */
function mintedPermissions(text: string, after: string): string[] {
  const from = text.indexOf(after)
  expect(from, `"${after}" not found`).toBeGreaterThanOrEqual(0)
  const body = text.slice(from).match(/tokens\.create[\s\S]*?-d '(\{"name":[^']*\})'/)?.[1]
  expect(body, `no tokens.create body after "${after}"`).toBeDefined()
  return (JSON.parse(body ?? '{}') as { permissions: string[] }).permissions
}

describe('the quick-start token', () => {
  const sources = {
    README: mintedPermissions(readme, '### The first five minutes with curl'),
    'npm start banner': mintedPermissions(start, 'An API token with curl'),
  }

  it.each(Object.entries(sources))('carries what the tour calls (%s)', (_where, permissions) => {
    for (const permission of permissions) expect(PERMISSIONS).toContain(permission)
    for (const name of TOUR) {
      const needed = procedures.get(name)?.permission
      expect(needed, `${name} is a procedure`).toBeDefined()
      if (needed === 'authenticated' || needed === 'public') continue
      expect(permissions, `${name} needs ${needed}`).toContain(needed)
    }
  })

  it('is the same in the README and the banner', () => {
    expect(sources['npm start banner']).toEqual(sources.README)
  })
})
