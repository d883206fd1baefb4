import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { clientAs } from './api.ts'
import { browserPages, inspect } from './helpers.ts'

// Monitoring → Maintenance: an admin adds a weekly window over a probe, sees it listed with its next opening,
// is told which field a bad zone is wrong in, and removes the window.

const pages = browserPages()

describe('the maintenance page', () => {
  it('adds a weekly window over a probe, refuses an unknown zone, lists the window and removes it', async () => {
    const suffix = randomUUID().slice(0, 8)
    const admin = await clientAs()
    const probe = await admin.probes.create({
      name: `ui-maintained-${suffix}`,
      type: 'heartbeat',
      targetKind: 'external',
      target: `nightly-${suffix}`,
      config: { intervalSeconds: 3600, graceSeconds: 600 },
    })
    const title = `ui-patching-${suffix}`
    const page = await pages.open('admin', '/monitoring/maintenance')
    await page.getByRole('heading', { level: 1, name: 'Maintenance windows' }).waitFor()
    const form = page.getByRole('form', { name: 'Add a maintenance window' })
    await form.getByLabel('Title').fill(title)
    await form.getByLabel('Repeats').selectOption('weekly')
    await form.getByLabel('Saturday').check()
    await form.getByLabel('Start time').fill('02:30')
    await form.getByLabel('Duration (minutes)').fill('90')
    await form.getByLabel('Time zone').fill('Mars/Olympus_Mons')
    await form.getByLabel(probe.name).check()
    await form.getByRole('button', { name: 'Add window' }).click()
    await expect.poll(() => form.getByRole('alert').first().textContent()).toContain('unknown time zone')

    await form.getByLabel('Time zone').fill('Europe/Berlin')
    await form.getByRole('button', { name: 'Add window' }).click()
    const row = page.locator('tr', { has: page.getByRole('cell', { name: title, exact: true }) })
    await expect.poll(() => row.count()).toBe(1)
    expect(await row.textContent()).toContain('Weekly, Sat, Sun at 02:30 (Europe/Berlin) for 90 min')
    expect(await row.textContent()).toContain('1 probe, 0 status pages')
    expect(await row.textContent()).toMatch(/(next|open until) \d{4}-\d\d-\d\d \d\d:\d\d UTC/)
    const stored = (await admin.maintenance.list({})).windows.find((window) => window.title === title)
    expect(stored).toMatchObject({ probeIds: [probe.id], schedule: { kind: 'weekly', days: ['sat', 'sun'] } })
    await inspect(page, 'monitoring-maintenance')

    await row.getByRole('button', { name: `Remove ${title}` }).click()
    await row.getByRole('button', { name: `Yes, remove ${title}` }).click()
    await expect.poll(() => row.count()).toBe(0)
    expect((await admin.maintenance.list({})).windows.some((window) => window.title === title)).toBe(false)
  })
})
