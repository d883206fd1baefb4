import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { agentUrl, clientAs, createUser } from './api.ts'
import { FAKE_AGENT_SECRET } from './fake-agent.ts'
import { browserPages, inspect, settled } from './helpers.ts'

// Monitoring: an admin creates a heartbeat probe from the form, pings its URL with curl from outside the browser
// and sees the list flip to up through the watch stream (no reload, no polling); then the probe's page with its
// hourly chart, events, settings and actions.

const pages = browserPages()
const run = promisify(execFile)
const tag = () => randomUUID().slice(0, 8)

describe('the monitoring pages', () => {
  it('creates a heartbeat probe, pings it with curl and sees the list flip to up live', async () => {
    const name = `ui-backup-${tag()}`
    const page = await pages.open('admin', '/monitoring')
    await page.getByRole('heading', { level: 1, name: 'Monitoring' }).waitFor()
    await expect.poll(() => page.getByTestId('watch-status').textContent()).toMatch(/^Live/)
    await inspect(page, 'monitoring-list')

    const form = page.getByRole('form', { name: 'Create a probe' })
    await form.getByLabel('Name').fill(name)
    await form.getByLabel('Type').selectOption('heartbeat')
    await form.getByLabel('Target kind').selectOption('external')
    await form.getByLabel(/^Target(?! kind)/).fill('nightly backup')
    // A bad value is answered next to the field it names (issue path config.intervalSeconds).
    await form.getByLabel('Interval (seconds)').fill('5')
    await form.getByRole('button', { name: 'Create probe' }).click()
    const fieldError = form.getByLabel('Interval (seconds)').locator('xpath=..').locator('.field-error')
    await expect.poll(() => fieldError.textContent()).toMatch(/30|greater|>=/i)
    await inspect(page, 'monitoring-create-invalid')
    await form.getByLabel('Interval (seconds)').fill('3600')
    await form.getByRole('button', { name: 'Create probe' }).click()

    const url = (await page.getByTestId('heartbeat-url').textContent())?.trim() ?? ''
    expect(url).toMatch(/\/api\/heartbeat\/hb_/)
    await expect.poll(() => page.getByText('shown only this once').count()).toBe(1)
    expect(await page.getByRole('button', { name: 'Copy heartbeat URL' }).count()).toBe(1)
    await inspect(page, 'monitoring-created-heartbeat')

    const row = page.locator('tr', { has: page.getByRole('link', { name, exact: true }) })
    await expect
      .poll(() => row.getByTestId('probe-state').textContent())
      .toMatch(/^○ waiting for its first ping$/)
    const navigations: string[] = []
    page.on('framenavigated', (frame) => navigations.push(frame.url()))

    const ping = await run('curl', ['-fsS', '-m', '10', url])
    expect(ping.stdout).toMatch(/OK/)
    await expect.poll(() => row.getByTestId('probe-state').textContent(), { timeout: 15_000 }).toMatch(/up/)
    expect(navigations, 'the page did not reload').toEqual([])
    await inspect(page, 'monitoring-list-up')
  })

  it('opens a probe page with its hourly chart, events, settings and actions', async () => {
    const admin = await clientAs()
    const probe = await admin.probes.create({
      name: `ui-cron-${tag()}`,
      type: 'heartbeat',
      targetKind: 'external',
      target: 'cron job',
      config: { intervalSeconds: 3600 },
    })
    const url = probe.heartbeatUrl ?? ''
    await run('curl', ['-fsS', '-m', '10', '--data-binary', 'backup done: 42 files', `${url}/0`])
    const page = await pages.open('admin', `/monitoring/probes/${probe.id}`)
    await page.getByRole('heading', { level: 1, name: probe.name }).waitFor()
    await expect.poll(() => page.getByTestId('probe-state').textContent()).toMatch(/up/)
    await page.getByRole('heading', { level: 2, name: 'History' }).waitFor()
    // Rollups reach D1 up to a minute after the ping: the chart, or the empty-range note until then.
    await expect
      .poll(
        async () =>
          (await page.locator('figure.chart canvas').count()) + (await page.getByText(/No checks/).count()),
      )
      .toBeGreaterThan(0)
    await page.getByLabel('7 d').check()
    await settled(page)
    await expect.poll(() => page.getByText('backup done: 42 files').count()).toBe(1)
    await page.getByRole('heading', { level: 2, name: 'Events' }).waitFor()
    await inspect(page, 'monitoring-probe')

    await page.getByRole('button', { name: 'Edit settings' }).click()
    const edit = page.getByRole('form', { name: "Edit the probe's settings" })
    await edit.getByLabel('Grace (seconds)').fill('-1')
    await edit.getByRole('button', { name: 'Save settings' }).click()
    await expect
      .poll(() => edit.getByLabel('Grace (seconds)').locator('xpath=..').locator('.field-error').count())
      .toBe(1)
    await inspect(page, 'monitoring-probe-edit')
    await edit.getByLabel('Grace (seconds)').fill('600')
    await edit.getByRole('button', { name: 'Save settings' }).click()
    await page.getByRole('button', { name: 'Edit settings' }).waitFor()

    await page.getByRole('button', { name: 'Rotate heartbeat token' }).click()
    const rotated = (await page.getByTestId('heartbeat-url').textContent())?.trim() ?? ''
    expect(rotated).not.toBe(url)
    await page.getByRole('button', { name: 'Pause probe' }).click()
    await page.getByRole('button', { name: 'Resume probe' }).waitFor()
    await inspect(page, 'monitoring-probe-rotated')
  })

  it('switches a heartbeat from an interval to a cron schedule in a time zone from the edit form', async () => {
    const admin = await clientAs()
    const probe = await admin.probes.create({
      name: `ui-schedule-${tag()}`,
      type: 'heartbeat',
      targetKind: 'external',
      target: 'nightly report',
      config: { intervalSeconds: 86_400 },
    })
    const page = await pages.open('admin', `/monitoring/probes/${probe.id}`)
    await page.getByRole('heading', { level: 1, name: probe.name }).waitFor()
    await page.getByRole('button', { name: 'Edit settings' }).click()
    const edit = page.getByRole('form', { name: "Edit the probe's settings" })
    await edit.getByLabel('Schedule (cron)').fill('0 3 * * *')
    await edit.getByLabel('Time zone').fill('Europe/Berlin')
    // Both an interval and a schedule: answered next to the schedule.
    await edit.getByRole('button', { name: 'Save settings' }).click()
    const scheduleError = edit.getByLabel('Schedule (cron)').locator('xpath=..').locator('.field-error')
    await expect.poll(() => scheduleError.textContent()).toMatch(/either intervalSeconds or schedule/)
    await inspect(page, 'monitoring-probe-schedule-invalid')
    await edit.getByLabel('Interval (seconds)').fill('')
    await edit.getByRole('button', { name: 'Save settings' }).click()
    await page.getByRole('button', { name: 'Edit settings' }).waitFor()
    const saved = await admin.probes.get({ id: probe.id })
    expect(saved.config).toMatchObject({ schedule: '0 3 * * *', timezone: 'Europe/Berlin' })
    expect(saved.config).not.toHaveProperty('intervalSeconds')
  })

  it('creates a probe checked from a node and shows where each probe is checked from', async () => {
    const admin = await clientAs()
    const node = await admin.nodes.create({
      name: `ui-checker-${tag()}`,
      agentUrl: agentUrl(),
      agentSecret: FAKE_AGENT_SECRET,
      // The private database below is reachable from the node once the node opens its range.
      checkAllowCidrs: ['10.0.0.0/8'],
    })
    const name = `ui-private-db-${tag()}`
    const page = await pages.open('admin', '/monitoring')
    const form = page.getByRole('form', { name: 'Create a probe' })
    await form.getByLabel('Name').fill(name)
    await form.getByLabel('Type').selectOption('tcp')
    await form.getByLabel(/^Target(?! kind)/).fill('10.0.0.9:5432')
    const places = form.getByRole('group', { name: 'Checked from' })
    // No place at all: answered next to the places.
    await places.getByLabel('Edge (the panel)').uncheck()
    await form.getByRole('button', { name: 'Create probe' }).click()
    await expect.poll(() => places.locator('.field-error').count()).toBe(1)
    await places.getByLabel(`Node ${node.name}`).check()
    await inspect(page, 'monitoring-create-located')
    await form.getByRole('button', { name: 'Create probe' }).click()
    await page.getByRole('heading', { name: 'Probe created' }).waitFor()
    const row = page.locator('tr', { has: page.getByRole('link', { name, exact: true }) })
    await expect.poll(() => row.textContent()).toContain(`from node ${node.name}`)

    await page.getByRole('link', { name, exact: true }).first().click()
    await page.getByRole('heading', { level: 1, name }).waitFor()
    await expect.poll(() => page.getByTestId('probe-location').textContent()).toBe(`node ${node.name}`)
    await page.getByRole('button', { name: 'Edit settings' }).click()
    const edit = page.getByRole('form', { name: "Edit the probe's settings" })
    await edit.getByLabel('Edge (the panel)').check()
    await edit.getByRole('button', { name: 'Save settings' }).click()
    await page.getByRole('button', { name: 'Edit settings' }).waitFor()
    await expect.poll(() => page.getByTestId('probe-location').textContent()).toBe(`node ${node.name}, edge`)
    await inspect(page, 'monitoring-probe-located')
  })

  it('loads the probes a page at a time and searches them by name or target', async () => {
    const admin = await clientAs()
    const batch = tag()
    for (let start = 0; start < 101; start += 20) {
      await Promise.all(
        Array.from({ length: Math.min(20, 101 - start) }, (_, i) =>
          admin.probes.create({
            name: `ui-page-${batch}-${start + i}`,
            type: 'heartbeat',
            targetKind: 'external',
            target: `paged ${batch}`,
          }),
        ),
      )
    }
    const total = (await admin.probes.list({ limit: 500 })).length
    expect(total).toBeGreaterThan(100)
    const page = await pages.open('admin', '/monitoring')
    const rows = page.locator('tbody tr')
    await expect.poll(() => rows.count()).toBe(100)
    const more = page.getByRole('button', { name: 'Load more probes' })
    await more.click()
    await expect.poll(() => rows.count()).toBe(Math.min(total, 200))
    if (total <= 200) await expect.poll(() => more.count()).toBe(0)

    await page.getByLabel('Search probes').fill(`ui-page-${batch}-7`)
    // 7 and 70 to 79.
    await expect.poll(() => rows.count()).toBe(11)
    expect(await page.getByRole('link', { name: `ui-page-${batch}-42` }).count()).toBe(0)
    await page.getByLabel('Search probes').fill(`paged ${batch}`)
    await expect.poll(() => rows.count()).toBe(100)
    await more.click()
    await expect.poll(() => rows.count()).toBe(101)
    await inspect(page, 'monitoring-search')
  })

  it('offers an operator the probes and their pages without any write action', async () => {
    const admin = await clientAs()
    const probe = await admin.probes.create({
      name: `ui-ro-${tag()}`,
      type: 'heartbeat',
      targetKind: 'external',
      target: 'ro',
    })
    const operator = await createUser('operator')
    const page = await pages.open(operator, '/monitoring')
    await page.getByRole('link', { name: probe.name }).waitFor()
    expect(await page.getByRole('form', { name: 'Create a probe' }).count()).toBe(0)
    await inspect(page, 'monitoring-operator-list')
    await page.getByRole('link', { name: probe.name }).click()
    await page.getByRole('heading', { level: 1, name: probe.name }).waitFor()
    await settled(page)
    expect(await page.getByRole('button').allTextContents()).toEqual(['Sign out'])
    await inspect(page, 'monitoring-operator-probe')
  })
})
