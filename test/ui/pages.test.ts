import { randomUUID } from 'node:crypto'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { createClient } from '../../src/client/index.ts'
import { agentUrl, baseUrl, clientAs } from './api.ts'
import { FAKE_AGENT_SECRET } from './fake-agent.ts'
import { browserPages, inspect, settled } from './helpers.ts'

// What an operator expects of every page: the navigation marks where you are, the overview says what fails now,
// the audit log reads by name, one date format, and a second probe starts from an empty form.

const pages = browserPages()
const tag = () => randomUUID().slice(0, 8)
const PANEL_TIME = /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/

/** The entries marked as the current page in the main navigation and in the area's tabs. */
async function marked(page: Page): Promise<string[]> {
  return page.locator('nav a[aria-current="page"]').allTextContents()
}

describe('the pages', () => {
  it('mark the area and the tab of every page, nested pages too', async () => {
    const admin = await clientAs()
    const node = await admin.nodes.create({
      name: `ui-nav-${tag()}`,
      agentUrl: agentUrl(),
      agentSecret: FAKE_AGENT_SECRET,
    })
    const instance = await admin.instances.create({ nodeId: node.id, name: 'nav', address: '10.0.0.31' })
    const site = await admin.sites.create({ instanceId: instance.id, name: `ui-nav-site-${tag()}` })
    const release = await admin.changelog.releases.create({
      version: `9.${Math.floor(Math.random() * 1000)}.${Math.floor(Math.random() * 1000)}`,
      title: 'Navigation',
      severity: 'patch',
      summary: 'Marks the current page.',
      items: [{ category: 'fixed', text: 'aria-current everywhere' }],
    })
    const page = await pages.open('admin', '/')
    const expected: [string, string[]][] = [
      ['/', ['Overview']],
      ['/fleet', ['Fleet']],
      [`/sites/${site.id}`, ['Fleet']],
      ['/dns/zones', ['DNS', 'Zones']],
      ['/dns/nameservers', ['DNS', 'Nameservers']],
      ['/dns/accounts', ['DNS', 'Provider accounts']],
      ['/changelog', ['Changelog', 'Releases']],
      [`/changelog/releases/${release.id}`, ['Changelog', 'Releases']],
      ['/changelog/webhooks', ['Changelog', 'Webhooks']],
      ['/changelog/mirror', ['Changelog', 'Mirror']],
      ['/monitoring', ['Monitoring', 'Probes']],
      ['/monitoring/channels', ['Monitoring', 'Channels']],
      ['/monitoring/status-pages', ['Monitoring', 'Status pages']],
      ['/audit', ['Audit log']],
    ]
    for (const [path, entries] of expected) {
      await page.goto(path)
      await settled(page)
      expect(await marked(page), path).toEqual(entries)
    }
    await inspect(page, 'pages-release-marked')
  })

  it('show on the overview what is down now, linked to its page', async () => {
    const admin = await clientAs()
    const probe = await admin.probes.create({
      name: `ui-failing-${tag()}`,
      type: 'heartbeat',
      targetKind: 'external',
      target: 'nightly export',
      config: { intervalSeconds: 3600 },
    })
    const failed = await fetch(`${probe.heartbeatUrl}/fail`)
    expect(failed.status).toBe(200)
    await expect
      .poll(async () => (await admin.probes.get({ id: probe.id })).state, { timeout: 15_000 })
      .toBe('down')

    const page = await pages.open('admin', '/')
    const tiles = page.getByRole('list', { name: 'Counts' })
    const probesTile = tiles.getByRole('listitem').filter({ hasText: 'Probes' })
    expect(await probesTile.textContent()).toMatch(
      /^\d+ Probes[1-9]\d* down(\d+ waiting for a first check)?$/,
    )
    for (const area of ['Nodes', 'Sites', 'Domains', 'Custom hostnames'])
      expect(await tiles.getByText(area).count()).toBe(1)
    const failing = page.getByRole('region', { name: 'Down or failing now' })
    await failing.getByRole('link', { name: probe.name }).click()
    await page.getByRole('heading', { level: 1, name: probe.name }).waitFor()
    expect(new URL(page.url()).pathname).toBe(`/monitoring/probes/${probe.id}`)
    await page.goto('/')
    await settled(page)
    await inspect(page, 'pages-overview-failing')
  })

  it('count on the overview what waits beside what fails: a probe never checked, a hostname waiting for DNS', async () => {
    const admin = await clientAs()
    await admin.probes.create({
      name: `ui-waiting-${tag()}`,
      type: 'heartbeat',
      targetKind: 'external',
      target: 'never pinged',
    })
    const node = await admin.nodes.create({
      name: `ui-waiting-${tag()}`,
      agentUrl: agentUrl(),
      agentSecret: FAKE_AGENT_SECRET,
      dnsTarget: 'edge.waiting.example.net',
    })
    const instance = await admin.instances.create({ nodeId: node.id, name: 'waiting', address: '10.0.0.32' })
    const site = await admin.sites.create({ instanceId: instance.id, name: `ui-waiting-${tag()}` })
    const registered = await admin.customHostnames.register({
      siteId: site.id,
      hostname: `www.customer-${tag()}.example.org`,
    })
    expect(['instructions', 'pending']).toContain(registered.state)
    const summary = await admin.overview.summary({})

    const page = await pages.open('admin', '/')
    const tiles = page.getByRole('list', { name: 'Counts' })
    expect(await tiles.getByTestId('waiting-probes').textContent()).toBe(
      `${summary.probes?.waiting} waiting for a first check`,
    )
    expect(await tiles.getByTestId('waiting-customHostnames').textContent()).toBe(
      `${summary.customHostnames?.waiting} waiting for DNS records`,
    )
    expect(summary.customHostnames?.waiting).toBeGreaterThan(0)
    await inspect(page, 'pages-overview-waiting')
  })

  it('name who acted and on what in the audit log, with details on their own lines', async () => {
    const admin = await clientAs()
    const name = `ui audit script ${tag()}`
    const minted = await admin.tokens.create({ name, permissions: ['fleet:manage', 'fleet:view'] })
    const byToken = createClient({ baseUrl: baseUrl(), headers: { authorization: `Bearer ${minted.token}` } })
    const node = await byToken.nodes.create({
      name: `ui-audited-${tag()}`,
      agentUrl: agentUrl(),
      agentSecret: FAKE_AGENT_SECRET,
    })
    await byToken.nodes.update({ id: node.id, publicIpv4: '198.51.100.9' })

    const page = await pages.open('admin', `/audit?targetId=${node.id}`)
    const rows = page.locator('tbody tr')
    await expect.poll(() => rows.count()).toBe(2)
    const [updated] = await rows.first().locator('td').allTextContents()
    expect(updated).toMatch(PANEL_TIME)
    const cells = await rows.first().locator('td').allTextContents()
    expect(cells[2]).toBe(`API token ${name}`)
    expect(cells[3]).toBe(node.name)
    expect(await rows.first().locator('dl.detail dt').allTextContents()).toEqual([
      'fields',
      'agentSecretChanged',
    ])
    expect(await page.locator('tbody').textContent()).not.toContain(minted.id)
    await inspect(page, 'pages-audit-named')
  })

  it('start "create another probe" from an empty form', async () => {
    const page = await pages.open('admin', '/monitoring')
    const form = page.getByRole('form', { name: 'Create a probe' })
    await form.getByLabel('Name').fill(`ui-first-${tag()}`)
    await form.getByLabel('Type').selectOption('tcp')
    await form.getByLabel(/^Target(?! kind)/).fill('127.0.0.1:9')
    await form.getByLabel('Interval (seconds)').fill('45')
    await form.getByRole('button', { name: 'Create probe' }).click()
    await page.getByRole('button', { name: 'Create another probe' }).click()
    const again = page.getByRole('form', { name: 'Create a probe' })
    expect(await again.getByLabel('Name').inputValue()).toBe('')
    expect(await again.getByLabel('Type').inputValue()).toBe('heartbeat')
    expect(await again.getByLabel(/^Target(?! kind)/).inputValue()).toBe('')
    expect(await again.getByLabel('Interval (seconds)').inputValue()).not.toBe('45')
  })
})
