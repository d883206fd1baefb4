import { randomUUID } from 'node:crypto'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentUrl, clientAs, createUser } from './api.ts'
import { FAKE_AGENT_SECRET } from './fake-agent.ts'
import { FAKE_POWERDNS_KEY, startFakePowerDns } from './fake-powerdns.ts'
import { browserPages, inspect, settled } from './helpers.ts'

// The DNS pages: provider accounts (created against no real provider, so the test fails and must say so),
// the defaults cascade, nameservers (the fake agent cannot install PowerDNS, which the page must show), zones
// (none can be created without a box running PowerDNS; then one is, against a fake PowerDNS, with the record
// editor and DNSSEC), and an operator who is offered no write action.

const pages = browserPages()
const suffix = randomUUID().slice(0, 6)
const account = `ui-dns-${suffix}`
const nodeName = `ui-dns-node-${suffix}`
// Nothing listens on port 9 of the loopback: the provider is unreachable, quickly.
const NO_PROVIDER = 'http://127.0.0.1:9/client/v4'

/** The text of the table row whose header cell names `name`. */
function row(page: Page, name: string) {
  return page.getByRole('row').filter({ has: page.getByRole('rowheader', { name, exact: true }) })
}

describe('the DNS pages', () => {
  let powerDns: Awaited<ReturnType<typeof startFakePowerDns>> | null = null
  beforeAll(async () => {
    const admin = await clientAs()
    await admin.nodes.create({ name: nodeName, agentUrl: agentUrl(), agentSecret: FAKE_AGENT_SECRET })
    powerDns = await startFakePowerDns()
  })
  afterAll(async () => {
    await powerDns?.close()
  })

  it('create a provider account whose test fails, and say so', async () => {
    const page = await pages.open('admin', '/dns/accounts')
    await page.getByRole('heading', { level: 1, name: 'Provider accounts' }).waitFor()
    const form = page.getByRole('form', { name: 'Add an account' })
    await form.getByLabel(/^Provider/).selectOption({ label: 'Cloudflare' })
    await form.getByLabel('Name', { exact: true }).fill(account)
    await form.getByLabel(/^Token/).fill('not-a-real-cloudflare-token')
    await form.getByLabel(/^API base URL/).fill('ftp://127.0.0.1/')
    await form.getByRole('button', { name: 'Save and test account' }).click()
    // The panel's 400 names apiBaseUrl: the message sits in that field's label, not only in a banner.
    await expect
      .poll(() => form.locator('label', { hasText: 'API base URL' }).textContent())
      .toContain('must be an http or https URL')
    await inspect(page, 'dns-accounts-field-error')

    await form.getByLabel(/^Token/).fill('not-a-real-cloudflare-token')
    await form.getByLabel(/^API base URL/).fill(NO_PROVIDER)
    await form.getByRole('button', { name: 'Save and test account' }).click()
    await expect.poll(() => form.getByText(`Saved ${account}`).textContent()).toMatch(/First test: failed/)
    // The token is write-only: gone from the form once saved, and shown nowhere.
    expect(await form.getByLabel(/^Token/).inputValue()).toBe('')
    expect(await page.content()).not.toContain('not-a-real-cloudflare-token')
    await expect.poll(() => row(page, account).textContent()).toMatch(/Cloudflare.*failed/)

    await page.getByRole('button', { name: `Test ${account}` }).click()
    await expect.poll(() => row(page, account).textContent()).toMatch(/Tested again: failed\./)
    await page.getByRole('button', { name: `Zones of ${account}` }).click()
    await page.getByText('Never refreshed').waitFor()
    await settled(page)
    await inspect(page, 'dns-accounts')

    // The same name again is the panel's 409, shown as the form's problem.
    await form.getByLabel('Name', { exact: true }).fill(account)
    await form.getByLabel(/^Token/).fill('another-token')
    await form.getByRole('button', { name: 'Save and test account' }).click()
    await expect.poll(() => form.getByRole('alert').first().textContent()).toMatch(/already exists/)
  })

  it('set a default on a node and read the cascade back', async () => {
    const page = await pages.open('admin', '/dns/accounts')
    const defaults = page.getByRole('region', { name: 'Defaults' })
    await defaults.getByLabel('Which node').selectOption({ label: nodeName })
    await settled(page)
    await defaults.getByLabel(`DNS provider default on ${nodeName}`).selectOption({ label: account })
    await defaults.getByRole('button', { name: 'Save DNS provider default' }).click()
    await expect
      .poll(() => row(page, 'DNS provider').textContent())
      .toMatch(new RegExp(`${account} \\(Cloudflare\\), set on the node`))
    await inspect(page, 'dns-accounts-defaults')
  })

  it('enroll a nameserver and show the failed PowerDNS install honestly', async () => {
    const page = await pages.open('admin', '/dns/nameservers')
    const form = page.getByRole('form', { name: 'Enroll a nameserver' })
    const box = `ui-ns-${suffix}`
    await form.getByLabel('Name', { exact: true }).fill(box)
    await form.getByLabel(/^Host name/).fill(`ns1-${suffix}.ui.test`)
    await form.getByLabel('Public IPv4').fill('192.0.2.53')
    await form.getByLabel('Node agent URL').fill(agentUrl())
    await form.getByLabel(/^Node agent secret/).fill(FAKE_AGENT_SECRET)
    await form.getByRole('button', { name: 'Enroll nameserver' }).click()
    await row(page, box).waitFor()
    expect(await row(page, box).textContent()).toMatch(/not installed.*not checked yet/)
    await page.getByRole('button', { name: `Install PowerDNS on ${box}` }).click()
    await expect.poll(() => row(page, box).getByRole('alert').textContent()).toMatch(/^Install failed: /)
    await settled(page)
    await inspect(page, 'dns-nameservers')
  })

  it('refuse a zone while no box runs PowerDNS, with the reason', async () => {
    const page = await pages.open('admin', '/dns/zones')
    await page.getByRole('heading', { level: 1, name: 'DNS zones' }).waitFor()
    const form = page.getByRole('form', { name: 'Create a zone' })
    await form.getByLabel('Zone name').fill(`zone-${suffix}.ui.test`)
    await form.getByRole('button', { name: 'Create zone' }).click()
    await expect
      .poll(() => form.getByRole('alert').textContent())
      .toMatch(/enroll a nameserver box with PowerDNS/)
    await inspect(page, 'dns-zones')
  })

  it('write record sets whole, show each box, sign the zone and copy its DS', async () => {
    if (!powerDns) throw new Error('the fake PowerDNS did not start')
    const admin = await clientAs()
    await admin.dnsServers.nameservers.enroll({
      name: `ui-pdns-${suffix}`,
      hostname: `ns2-${suffix}.ui.test`,
      publicIpv4: '192.0.2.54',
      agentUrl: agentUrl(),
      agentSecret: FAKE_AGENT_SECRET,
      powerDns: { apiUrl: powerDns.url, apiKey: FAKE_POWERDNS_KEY },
    })
    const zone = `zone-${suffix}.ui.test`
    const page = await pages.open('admin', '/dns/zones')
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'])
    const create = page.getByRole('form', { name: 'Create a zone' })
    await create.getByLabel('Zone name').fill(zone)
    await create.getByRole('button', { name: 'Create zone' }).click()
    await create.getByRole('link', { name: zone }).click()
    await page.getByRole('heading', { level: 1, name: `Zone ${zone}` }).waitFor()
    await settled(page)
    expect(await row(page, zone).first().textContent()).toMatch(/kept by the panel/)

    const www = `www.${zone}`
    await page.getByRole('button', { name: 'Add a record set' }).click()
    const editor = page.getByRole('form', { name: 'Write a record set' })
    await editor.getByLabel(/^Name/).fill(www)
    await editor.getByLabel(/^TTL/).fill('300')
    await editor.getByLabel(/^Values/).fill('192.0.2.1\nnot-an-address')
    await editor.getByRole('button', { name: 'Save record set' }).click()
    await expect
      .poll(() => editor.locator('label', { hasText: 'Values' }).textContent())
      .toContain('Line 2: must be an IPv4 address')
    await inspect(page, 'dns-zone-record-error')
    await editor.getByLabel(/^Values/).fill('192.0.2.1\n192.0.2.2')
    await editor.getByRole('button', { name: 'Save record set' }).click()
    const results = page.getByRole('table', { name: `Wrote ${www} A: each box` })
    await expect.poll(() => results.textContent()).toMatch(/ui-pdns-\w+yessynced/)
    await expect
      .poll(() => row(page, www).textContent())
      .toBe(`${www}A300192.0.2.1192.0.2.2Edit ${www} ADelete ${www} A`)

    // Saving replaces the whole set: the edited set holds only what the text area holds.
    await page.getByRole('button', { name: `Edit ${www} A` }).click()
    await editor.getByLabel(/^Values/).fill('192.0.2.3')
    await editor.getByRole('button', { name: 'Save record set' }).click()
    await expect.poll(() => row(page, www).textContent()).toMatch(/300192\.0\.2\.3Edit/)
    await inspect(page, 'dns-zone')

    await page.getByRole('button', { name: 'Turn DNSSEC on' }).click()
    await page.getByRole('table', { name: 'DNSSEC turned on: each box' }).waitFor()
    const ds = `${zone}. IN DS 4242 13 2 6f1c3a9be0d84c2a9a3b1e5f7d0c2b4a6e8f0a1b3c5d7e9f1a2b3c4d5e6f7a8b`
    await page.getByText(ds, { exact: true }).waitFor()
    await page.getByRole('button', { name: 'Copy SHA-256 DS record' }).click()
    await page.getByText('Copied', { exact: true }).waitFor()
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(ds)
    await settled(page)
    await inspect(page, 'dns-zone-dnssec')

    await page.getByRole('button', { name: `Delete ${www} A` }).click()
    await page.getByRole('button', { name: `Yes, delete every ${www} A value` }).click()
    await page.getByRole('table', { name: `Deleted ${www} A: each box` }).waitFor()
    await expect.poll(() => row(page, www).count()).toBe(0)
  })

  it('offer an operator no write action on the DNS pages', async () => {
    const operator = await createUser('operator')
    for (const path of ['/dns/accounts', '/dns/nameservers', '/dns/zones']) {
      const page = await pages.open(operator, path)
      await page.getByRole('heading', { level: 1 }).waitFor()
      expect(await page.getByRole('form').count(), `${path} forms`).toBe(0)
      const buttons = await page.getByRole('button').allTextContents()
      expect(
        buttons.filter((name) => /^(test|edit|remove|install|verify|save|enroll|create)/i.test(name)),
      ).toEqual([])
      await inspect(page, `dns-operator${path.replaceAll('/', '-')}`)
    }
  })
})
