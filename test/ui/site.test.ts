import { randomUUID } from 'node:crypto'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { agentUrl, clientAs } from './api.ts'
import { FAKE_AGENT_SECRET } from './fake-agent.ts'
import { FAKE_EDGE_TARGET } from './fake-resolver.ts'
import { browserPages, inspect, settled } from './helpers.ts'

// A site's Networking: attach a domain against the fake node agent and resolver and watch its steps advance to
// green, open and remove a raw forward, mint a site token (shown once) and revoke it, allow-list `*` (with its
// warning) and register a custom hostname whose records are shown for the customer.

const pages = browserPages()
const tag = () => randomUUID().slice(0, 8)
const site = { id: '', name: '' }

beforeAll(async () => {
  const admin = await clientAs()
  const node = await admin.nodes.create({
    name: `ui-site-node-${tag()}`,
    agentUrl: agentUrl(),
    agentSecret: FAKE_AGENT_SECRET,
    dnsTarget: FAKE_EDGE_TARGET,
  })
  const instance = await admin.instances.create({ nodeId: node.id, name: 'web', address: '10.0.0.31' })
  const created = await admin.sites.create({ instanceId: instance.id, name: `ui-shop-${tag()}` })
  Object.assign(site, { id: created.id, name: created.name })
})

const openSite = async (options: { timezoneId?: string } = {}): Promise<Page> => {
  const page = await pages.open('admin', `/sites/${site.id}`, options)
  await page.getByRole('heading', { level: 1, name: site.name }).waitFor()
  await settled(page)
  return page
}

/** The state words of the progress list, one per step, as the page shows them now. */
const stepStates = (page: Page, hostname: string) =>
  page
    .getByRole('list', { name: `Progress of ${hostname}` })
    .locator('.step-state')
    .allTextContents()

describe('the site page', () => {
  it('shows the Networking section', async () => {
    const page = await openSite()
    for (const name of ['Networking', 'Domains', 'Routes', 'Custom hostnames'])
      await page.getByRole('heading', { name, exact: true }).waitFor()
    await inspect(page, 'site')
  })

  it('attaches a domain and shows its steps advancing to green, then detaches it', async () => {
    const hostname = `shop-${tag()}.example.com`
    const page = await openSite()
    const form = page.getByRole('form', { name: 'Attach a domain' })
    await form.getByLabel('Hostname').fill(hostname)
    await form.getByRole('combobox', { name: /^DNS driver/ }).selectOption('manual')
    await form.getByRole('button', { name: "Test the driver's credentials" }).click()
    await expect
      .poll(() => form.getByRole('status').first().textContent())
      .toMatch(/^The driver works: manual writes no DNS record/)
    await form.getByRole('button', { name: 'Attach domain' }).click()
    const card = page.getByRole('article', { name: hostname })
    await card.waitFor()
    const seen: string[][] = []
    await expect
      .poll(
        async () => {
          const states = await stepStates(page, hostname)
          if (seen.at(-1)?.join() !== states.join()) seen.push(states)
          if (seen.length === 1) await inspect(page, 'site-domain-attaching')
          return states
        },
        { timeout: 90_000, interval: 250 },
      )
      .toEqual(['passed', 'skipped', 'passed', 'passed', 'passed', 'passed'])
    // The page showed the flow part-way before it was done: some step not started yet.
    expect(
      seen.some((states) => states.includes('not started')),
      JSON.stringify(seen),
    ).toBe(true)
    expect(await card.textContent()).toContain('serving with an issued certificate')
    expect(await card.textContent()).toContain('Set up backups')
    await page
      .getByRole('row')
      .filter({ hasText: `https://${hostname}` })
      .waitFor()
    await inspect(page, 'site-domain-green')

    await card.getByRole('button', { name: `Detach ${hostname}` }).click()
    await card.getByRole('button', { name: `Yes, detach ${hostname}` }).click()
    await expect.poll(() => card.count(), { timeout: 60_000 }).toBe(0)
  }, 150_000)

  it('opens a raw forward, sees it go active, and removes it', async () => {
    const port = 20_000 + Math.floor(Math.random() * 20_000)
    const page = await openSite()
    const form = page.getByRole('form', { name: 'Open a raw forward' })
    await form.getByLabel('Port on the node').fill(String(port))
    await form.getByLabel('Port on the instance').fill('22')
    await form.getByRole('button', { name: 'Open forward' }).click()
    const row = page.getByRole('row').filter({ hasText: `tcp ${port} → instance port 22` })
    await expect.poll(() => row.locator('.state').textContent(), { timeout: 30_000 }).toBe('active')
    // The version column says what its two numbers are.
    expect(await page.getByRole('columnheader', { name: /^Config version/ }).textContent()).toBe(
      'Config version (applied / desired)',
    )
    await inspect(page, 'site-raw-forward')
    await row.getByRole('button', { name: `Remove tcp ${port}` }).click()
    await row.getByRole('button', { name: `Yes, remove tcp ${port}` }).click()
    await expect.poll(() => row.count(), { timeout: 30_000 }).toBe(0)
  })

  it('mints a site token expiring at a UTC time, shows it once, and revokes it', async () => {
    const name = `app-${tag()}`
    // A browser far from UTC: the expiry typed is UTC all the same, as the label says.
    const page = await openSite({ timezoneId: 'Asia/Tokyo' })
    const form = page.getByRole('form', { name: 'Mint a site token' })
    await form.getByLabel('Token name').fill(name)
    await form.getByLabel(/^Expires \(optional\) \(UTC, YYYY-MM-DD HH:MM\)/).fill('2031-02-03 04:05')
    await form.getByRole('button', { name: 'Mint site token' }).click()
    const secret = page.getByTestId('site-token')
    await secret.waitFor()
    const token = (await secret.textContent()) ?? ''
    expect(token).toMatch(/^spat_/)
    await inspect(page, 'site-token-minted')
    await page.getByRole('button', { name: 'I have stored it' }).click()
    await secret.waitFor({ state: 'detached' })
    const row = page.getByRole('row').filter({ hasText: name })
    await row.getByText('active').waitFor()
    expect(await row.textContent()).toContain('2031-02-03 04:05 UTC')
    expect(await page.content()).not.toContain(token)
    await page.reload()
    await row.waitFor()
    await settled(page)
    expect(await page.content()).not.toContain(token)
    await row.getByRole('button', { name: `Revoke ${name}` }).click()
    await row.getByRole('button', { name: `Yes, revoke ${name}` }).click()
    await expect.poll(() => row.textContent()).toContain('revoked')
  })

  it('warns about * in the allow-list and shows a registered hostname with its records', async () => {
    const hostname = `www.customer-${tag()}.example.net`
    const page = await openSite()
    const allow = page.getByRole('form', { name: 'Edit the zone allow-list' })
    await allow.getByRole('textbox').fill('*')
    await allow.getByText('allow-lists every zone').waitFor()
    await allow.getByRole('button', { name: 'Save allow-list' }).click()
    await page.getByText(/^Warning:/).waitFor()

    const register = page.getByRole('form', { name: 'Register a custom hostname' })
    await register.getByLabel('Customer hostname').fill(hostname)
    await register.getByRole('button', { name: 'Check hostname' }).click()
    await register.getByText('external', { exact: false }).first().waitFor()
    await register.getByRole('button', { name: 'Register hostname' }).click()
    const item = page.getByRole('listitem').filter({ hasText: `Records for ${hostname}` })
    await item.waitFor()
    expect(await item.textContent()).toContain('instructions')
    expect(await item.getByTestId('hostname-state-meaning').textContent()).toMatch(
      /^Waiting for the customer to create these records/,
    )
    // Its route is on the node, but the hostname does not reach the site yet: the Routes table says so.
    const route = page.getByRole('row').filter({ hasText: `https://${hostname}` })
    await expect
      .poll(() => route.getByTestId('route-status').textContent(), { timeout: 15_000 })
      .toMatch(/^waiting for DNS: the customer creates the records/)
    await item.getByRole('cell', { name: FAKE_EDGE_TARGET }).waitFor()
    // Check now reads DNS at once and shows the diagnosis: the planned CNAME against what the resolver holds.
    await item.getByRole('button', { name: `Check now: DNS of ${hostname}` }).click()
    const diagnosis = item.getByRole('table', { name: `DNS diagnosis of ${hostname}` })
    const verdict = diagnosis.getByRole('row').filter({ hasText: FAKE_EDGE_TARGET })
    await verdict.waitFor()
    expect(await verdict.textContent()).toMatch(new RegExp(`^CNAME ${hostname}${FAKE_EDGE_TARGET}.*ok`))
    expect(await item.textContent()).toMatch(/DNS resolves\s*yes/)
    expect(await diagnosis.textContent()).not.toContain('missing')
    await inspect(page, 'site-custom-hostnames')

    await allow.getByRole('textbox').fill('')
    await allow.getByRole('button', { name: 'Save allow-list' }).click()
    await expect.poll(() => page.getByText(/^Warning:/).count()).toBe(0)
  }, 150_000)
})
