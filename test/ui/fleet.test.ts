import { randomUUID } from 'node:crypto'
import { beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../../node-agent/testing/harness.ts'
import { agentUrl, clientAs, runMinuteCron } from './api.ts'
import { FAKE_AGENT_SECRET } from './fake-agent.ts'
import { FAKE_EDGE_TARGET } from './fake-resolver.ts'
import { browserPages, inspect, settled } from './helpers.ts'

// The fleet page: an admin creates a node, an instance and a site from the forms, edits the node, and reads
// the panel's 409 reasons when a removal is refused (a node with instances, a site holding a hostname).

const pages = browserPages()
const tag = () => randomUUID().slice(0, 8)

describe('the fleet page', () => {
  it('creates a node, an instance on it and a site on that, then opens the site', async () => {
    const names = { node: `ui-node-${tag()}`, instance: `ui-instance-${tag()}`, site: `ui-site-${tag()}` }
    const page = await pages.open('admin', '/fleet')
    await page.getByRole('heading', { level: 1, name: 'Fleet' }).waitFor()

    await page.getByRole('button', { name: 'Add a node' }).click()
    const nodeForm = page.getByRole('form', { name: 'Add a node' })
    await nodeForm.getByLabel('Name', { exact: true }).fill(names.node)
    await nodeForm.getByLabel('Agent URL').fill(agentUrl())
    await nodeForm.getByLabel('Agent secret').fill(FAKE_AGENT_SECRET)
    await nodeForm.getByLabel(/^DNS target/).fill(FAKE_EDGE_TARGET)
    await inspect(page, 'fleet-add-node')
    await nodeForm.getByRole('button', { name: 'Add node' }).click()
    await page.getByRole('cell', { name: names.node, exact: true }).waitFor()

    await page.getByRole('button', { name: 'Add an instance' }).click()
    const instanceForm = page.getByRole('form', { name: 'Add an instance' })
    await instanceForm.getByRole('combobox').selectOption({ label: names.node })
    await instanceForm.getByLabel('Name', { exact: true }).fill(names.instance)
    await instanceForm.getByLabel(/^Address/).fill('10.0.0.21')
    await instanceForm.getByRole('button', { name: 'Add instance' }).click()
    await page.getByRole('cell', { name: names.instance, exact: true }).waitFor()

    await page.getByRole('button', { name: 'Add a site' }).click()
    const siteForm = page.getByRole('form', { name: 'Add a site' })
    await siteForm.getByRole('combobox').selectOption({ label: `${names.instance} on ${names.node}` })
    await siteForm.getByLabel('Name', { exact: true }).fill(names.site)
    await siteForm.getByLabel(/^Port/).fill('8080')
    await siteForm.getByRole('button', { name: 'Add site' }).click()
    await page.getByRole('link', { name: names.site }).waitFor()
    // Instance names repeat across nodes: the site's row names the node too.
    await page.getByRole('cell', { name: `${names.instance} on ${names.node}`, exact: true }).waitFor()
    await settled(page)
    await inspect(page, 'fleet')

    await page.getByRole('link', { name: names.site }).click()
    await page.getByRole('heading', { level: 1, name: names.site }).waitFor()
    await settled(page)
    await page.getByText(`${names.node} (${FAKE_EDGE_TARGET})`).waitFor()
    await inspect(page, 'fleet-new-site')
  })

  it('edits a node and shows a field the panel refuses next to its input', async () => {
    const admin = await clientAs()
    const node = await admin.nodes.create({
      name: `ui-edit-${tag()}`,
      agentUrl: agentUrl(),
      agentSecret: FAKE_AGENT_SECRET,
    })
    const page = await pages.open('admin', '/fleet')
    await page.getByRole('button', { name: `Edit node ${node.name}` }).click()
    const form = page.getByRole('form', { name: `Edit node ${node.name}` })
    await form.getByLabel('Public IPv4 (optional)').fill('not-an-address')
    await form.getByRole('button', { name: 'Save node' }).click()
    await expect.poll(() => form.getByRole('alert').first().textContent()).toMatch(/IPv4|address/i)
    await inspect(page, 'fleet-edit-node-refused')
    await form.getByLabel('Public IPv4 (optional)').fill('198.51.100.7')
    await form.getByRole('button', { name: 'Save node' }).click()
    await page.getByRole('cell', { name: '198.51.100.7' }).waitFor()
    expect((await admin.nodes.get({ id: node.id })).publicIpv4).toBe('198.51.100.7')
  })

  it("shows each node's agent health, with the error of one that does not answer", async () => {
    const admin = await clientAs()
    const healthy = await admin.nodes.create({
      name: `ui-healthy-${tag()}`,
      agentUrl: agentUrl(),
      agentSecret: FAKE_AGENT_SECRET,
    })
    // Nothing listens there: the check finds no agent.
    const gone = await admin.nodes.create({
      name: `ui-gone-${tag()}`,
      agentUrl: `http://127.0.0.1:${await freePort()}`,
      agentSecret: FAKE_AGENT_SECRET,
    })
    const page = await pages.open('admin', '/fleet')
    const row = (name: string) => page.getByRole('row').filter({ hasText: name })
    await row(gone.name).getByText('not checked yet').waitFor()
    await runMinuteCron()
    const stateOf = async (id: string) => (await admin.nodes.get({ id })).health.state
    await expect.poll(() => stateOf(healthy.id), { timeout: 20_000 }).toBe('ok')
    await expect.poll(() => stateOf(gone.id), { timeout: 20_000 }).toBe('unreachable')
    await page.reload()
    await row(healthy.name)
      .getByText(/^\W*ok$/)
      .waitFor()
    await row(healthy.name).getByText('agent ui-fake-1.0.0').waitFor()
    await row(gone.name)
      .getByText(/^\W*unreachable$/)
      .waitFor()
    await row(gone.name)
      .getByText(/did not answer/)
      .waitFor()
    await settled(page)
    await inspect(page, 'fleet-node-health')
  })

  describe('removal', () => {
    const seeded = { node: '', site: '', hostname: '' }
    beforeAll(async () => {
      const admin = await clientAs()
      const node = await admin.nodes.create({
        name: `ui-busy-${tag()}`,
        agentUrl: agentUrl(),
        agentSecret: FAKE_AGENT_SECRET,
        dnsTarget: FAKE_EDGE_TARGET,
      })
      const instance = await admin.instances.create({ nodeId: node.id, name: 'busy', address: '10.0.0.22' })
      const site = await admin.sites.create({ instanceId: instance.id, name: `ui-busy-site-${tag()}` })
      const hostname = `held-${tag()}.example.org`
      await admin.customHostnames.register({ siteId: site.id, hostname })
      Object.assign(seeded, { node: node.name, site: site.name, hostname })
    })

    it('shows why a node with instances and a site holding a hostname cannot be removed', async () => {
      const page = await pages.open('admin', '/fleet')
      await page.getByRole('button', { name: `Remove node ${seeded.node}` }).click()
      await page.getByRole('button', { name: `Yes, remove ${seeded.node}` }).click()
      const nodeRow = page.getByRole('row').filter({ hasText: seeded.node })
      await expect.poll(() => nodeRow.getByRole('alert').textContent()).toMatch(/remove the instances/)

      await page.getByRole('button', { name: `Remove site ${seeded.site}` }).click()
      await page.getByRole('button', { name: `Yes, remove ${seeded.site}` }).click()
      const siteRow = page.getByRole('row').filter({ hasText: seeded.site })
      await expect.poll(() => siteRow.getByRole('alert').textContent()).toContain(seeded.hostname)
      await inspect(page, 'fleet-removal-refused')
    })
  })
})
