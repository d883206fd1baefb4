import { randomUUID } from 'node:crypto'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import type { Client } from '../../src/client/index.ts'
import { clientAs } from './api.ts'
import { browserPages, inspect, settled } from './helpers.ts'

// The channel picker: the probe form and Settings → Notifications offer the notification channels as checkboxes
// (name and kind) and save the picks as ids, read back through the API after a reload.

const pages = browserPages()
const tag = () => randomUUID().slice(0, 8)

/** An ntfy channel; nothing is ever sent to it here. */
function ntfyChannel(admin: Client, name: string) {
  return admin.notifications.channels.create({
    kind: 'ntfy',
    name,
    config: { topicUrl: `http://127.0.0.1:9/${name}` },
  })
}

/** Two channels named after `label`. */
async function twoChannels(label: string) {
  const admin = await clientAs()
  const make = (letter: string) => ntfyChannel(admin, `ui-${label}-${letter}-${tag()}`)
  return { admin, first: await make('a'), second: await make('b') }
}

const picker = (page: Page) => page.getByRole('group', { name: 'Channels' })

/** Answers the page's channel list with `status` and `body` instead of the panel. */
async function forgeChannelList(page: Page, status: number, body: unknown) {
  await page.route('**/api/rpc/notifications.channels.list', (route) =>
    route.fulfill({
      status,
      contentType: status === 200 ? 'application/json' : 'application/problem+json',
      body: JSON.stringify(body),
    }),
  )
}

describe('the channel picker', () => {
  it('picks a channel for a new probe and changes the picks from its edit form', async () => {
    const { admin, first, second } = await twoChannels('probe')
    const page = await pages.open('admin', '/monitoring')
    const form = page.getByRole('form', { name: 'Create a probe' })
    await form.getByLabel('Name').fill(`ui-picked-${tag()}`)
    await form.getByLabel('Type').selectOption('heartbeat')
    await form.getByLabel(/^Target(?! kind)/).fill('picked channels')
    await form.getByLabel('Emails').fill('oncall@ui.example.com')
    const choices = picker(page)
    expect(await choices.getByRole('checkbox', { name: `${second.name} (ntfy)` }).isChecked()).toBe(false)
    await choices.getByRole('checkbox', { name: second.name }).check()
    await inspect(page, 'monitoring-create-channels')
    await form.getByRole('button', { name: 'Create probe' }).click()
    const created = page.getByRole('region', { name: 'Probe created' }).getByRole('link')
    const id = (await created.getAttribute('href'))?.split('/').pop() ?? ''
    const stored = await admin.probes.get({ id })
    expect(stored.notifyConfig.channels).toEqual([second.id])
    expect(stored.notifyConfig.emails).toEqual(['oncall@ui.example.com'])

    await page.goto(`/monitoring/probes/${id}`)
    await settled(page)
    await expect.poll(() => page.getByText(second.name).count()).toBe(1)
    await page.getByRole('button', { name: 'Edit settings' }).click()
    const edit = page.getByRole('form', { name: "Edit the probe's settings" })
    expect(await edit.getByRole('checkbox', { name: second.name }).isChecked()).toBe(true)
    expect(await edit.getByRole('checkbox', { name: first.name }).isChecked()).toBe(false)
    await inspect(page, 'monitoring-probe-edit-channels')
    await edit.getByRole('checkbox', { name: first.name }).check()
    await edit.getByRole('checkbox', { name: second.name }).uncheck()
    await edit.getByRole('button', { name: 'Save settings' }).click()
    await page.getByRole('button', { name: 'Edit settings' }).waitFor()

    await page.reload()
    await settled(page)
    await page.getByRole('button', { name: 'Edit settings' }).click()
    expect(await edit.getByRole('checkbox', { name: first.name }).isChecked()).toBe(true)
    expect(await edit.getByRole('checkbox', { name: second.name }).isChecked()).toBe(false)
    const changed = await admin.probes.get({ id })
    expect(changed.notifyConfig.channels).toEqual([first.id])
    expect(changed.notifyConfig.emails).toEqual(['oncall@ui.example.com'])

    // Unticking the last one saves none.
    await edit.getByRole('checkbox', { name: first.name }).uncheck()
    await edit.getByRole('button', { name: 'Save settings' }).click()
    await page.getByRole('button', { name: 'Edit settings' }).waitFor()
    expect((await admin.probes.get({ id })).notifyConfig.channels).toEqual([])
  })

  it('offers channels past the first page of the list', async () => {
    const admin = await clientAs()
    const batch = tag()
    const made = []
    for (let start = 0; start < 101; start += 20)
      made.push(
        ...(await Promise.all(
          Array.from({ length: Math.min(20, 101 - start) }, (_, i) =>
            ntfyChannel(admin, `ui-paged-${batch}-${String(start + i).padStart(3, '0')}`),
          ),
        )),
      )
    const page = await pages.open('admin', '/monitoring')
    const choices = picker(page).getByRole('checkbox', { name: `ui-paged-${batch}-` })
    await expect.poll(() => choices.count()).toBe(101)
    // The list answers newest first, so the oldest ones come on a later page.
    const oldest = made.at(0)
    if (!oldest) throw new Error('no channel was made')
    const form = page.getByRole('form', { name: 'Create a probe' })
    await form.getByLabel('Name').fill(`ui-paged-probe-${batch}`)
    await form.getByLabel('Type').selectOption('heartbeat')
    await form.getByLabel(/^Target(?! kind)/).fill('paged channels')
    await picker(page).getByRole('checkbox', { name: oldest.name }).check()
    await inspect(page, 'monitoring-create-many-channels')
    await form.getByRole('button', { name: 'Create probe' }).click()
    const created = page.getByRole('region', { name: 'Probe created' }).getByRole('link')
    const id = (await created.getAttribute('href'))?.split('/').pop() ?? ''
    expect((await admin.probes.get({ id })).notifyConfig.channels).toEqual([oldest.id])
  })

  it('links to Monitoring → Channels when there is no channel yet', async () => {
    const page = await pages.open('admin')
    await forgeChannelList(page, 200, { channels: [], nextCursor: null })
    await page.goto('/monitoring')
    await settled(page)
    const choices = picker(page)
    expect(await choices.getByRole('checkbox').count()).toBe(0)
    await inspect(page, 'monitoring-create-no-channels')
    await choices.getByRole('link', { name: 'Monitoring → Channels' }).click()
    await page.getByRole('heading', { level: 1, name: 'Notification channels' }).waitFor()
  })

  it('picks the channels told of operational problems in Settings → Notifications', async () => {
    const { admin, first, second } = await twoChannels('ops')
    const page = await pages.open('admin', '/settings/notifications')
    const form = page.getByRole('form', { name: 'Recipients' })
    await picker(page).getByRole('checkbox', { name: second.name }).check()
    await inspect(page, 'settings-notifications-channels')
    await form.getByRole('button', { name: 'Save' }).click()
    await expect.poll(async () => (await admin.settings.notifications.get({})).channels).toEqual([second.id])

    await page.reload()
    await settled(page)
    expect(await picker(page).getByRole('checkbox', { name: second.name }).isChecked()).toBe(true)
    expect(await picker(page).getByRole('checkbox', { name: first.name }).isChecked()).toBe(false)
    await picker(page).getByRole('checkbox', { name: first.name }).check()
    await picker(page).getByRole('checkbox', { name: second.name }).uncheck()
    await form.getByRole('button', { name: 'Save' }).click()
    await expect.poll(async () => (await admin.settings.notifications.get({})).channels).toEqual([first.id])

    await picker(page).getByRole('checkbox', { name: first.name }).uncheck()
    await form.getByRole('button', { name: 'Save' }).click()
    await expect.poll(async () => (await admin.settings.notifications.get({})).channels).toEqual([])
    await form.getByRole('status').getByText('Saved.').waitFor()
  })

  it('keeps the form usable and the stored picks when the channels cannot be listed', async () => {
    // No role of the pages holds settings:edit without probes:view, so the refusal is forged on the way.
    const { admin, first } = await twoChannels('forbidden')
    const before = await admin.settings.notifications.get({})
    // The stored webhook URL again keeps its stored secret.
    const webhook = before.webhook ? { url: before.webhook.url } : null
    await admin.settings.notifications.set({ emails: before.emails, webhook, channels: [first.id] })
    const page = await pages.open('admin')
    await forgeChannelList(page, 403, {
      type: 'about:blank',
      title: 'Forbidden',
      status: 403,
      detail: 'needs probes:view',
      code: 'forbidden',
      requestId: '',
    })
    await page.goto('/settings/notifications')
    await settled(page)
    const choices = picker(page)
    await expect.poll(() => choices.getByText(/cannot list the notification channels/).count()).toBe(1)
    expect(await choices.getByRole('checkbox').count()).toBe(0)
    await inspect(page, 'settings-notifications-channels-forbidden')
    const form = page.getByRole('form', { name: 'Recipients' })
    await form.getByLabel('Email addresses').fill('forbidden@ui.example.com')
    await form.getByRole('button', { name: 'Save' }).click()
    await form.getByRole('status').getByText('Saved.').waitFor()
    const saved = await admin.settings.notifications.get({})
    expect(saved.emails).toEqual(['forbidden@ui.example.com'])
    expect(saved.channels).toEqual([first.id])
    await admin.settings.notifications.set({ emails: before.emails, webhook, channels: [] })
  })
})
