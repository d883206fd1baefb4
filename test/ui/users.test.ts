import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { clientAs } from './api.ts'
import { browserPages, inspect, settled } from './helpers.ts'

// The admin's pages for people and access: users (create, role, password, remove), API tokens (the permission
// picker, the token shown once, revoke) and the audit log (filters from the URL, cursor paging).

const pages = browserPages()

describe('the users page', () => {
  it('creates a user, shows the errors next to their fields, changes the role, resets the password, removes', async () => {
    const email = `people-${randomUUID().slice(0, 8)}@ui.test`
    const page = await pages.open('admin', '/users')
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor()
    await page.getByRole('button', { name: 'Add a user' }).click()
    const form = page.getByRole('form', { name: 'Create a user' })
    await form.getByLabel('Email').fill(email)
    await form.getByLabel(/^Password/).fill('too-short')
    // The browser's own minLength check would stop the request; the panel's answer is what is shown here.
    await form.evaluate((element) => element.setAttribute('novalidate', ''))
    await form.getByRole('button', { name: 'Create user' }).click()
    await expect.poll(() => form.locator('.field-error').textContent()).toMatch(/at least 12 characters/)
    await inspect(page, 'users-field-error')

    await form.getByLabel(/^Password/).fill('people-password-123')
    await form.getByRole('button', { name: 'Create user' }).click()
    const row = page.getByRole('row', { name: new RegExp(email) })
    await row.waitFor()
    expect(await row.getByRole('combobox', { name: `Role of ${email}` }).inputValue()).toBe('operator')
    await expect.poll(() => page.getByText(`Created ${email} (operator).`).count()).toBe(1)
    await inspect(page, 'users-created')

    await page.getByRole('button', { name: 'Add a user' }).click()
    await form.getByLabel('Email').fill(email)
    await form.getByLabel(/^Password/).fill('people-password-123')
    await form.getByRole('button', { name: 'Create user' }).click()
    await expect.poll(() => form.getByRole('alert').textContent()).toMatch(/already exists/)
    await form.getByRole('button', { name: 'Cancel' }).click()

    await row.getByRole('combobox', { name: `Role of ${email}` }).selectOption('admin')
    await row.getByRole('button', { name: `Change role of ${email}` }).click()
    await expect.poll(() => row.getByText(`${email} is now admin.`).count()).toBe(1)

    await row.getByRole('button', { name: `Reset password of ${email}` }).click()
    const reset = page.getByRole('form', { name: `Reset the password of ${email}` })
    await reset.getByLabel(`New password for ${email}`).fill('people-password-456')
    await reset.getByRole('button', { name: 'Set password' }).click()
    await expect.poll(() => row.getByText(/Password of .* changed/).count()).toBe(1)
    await inspect(page, 'users-changed')

    await row.getByRole('button', { name: `Remove ${email}` }).click()
    await row.getByRole('button', { name: `Yes, remove ${email}` }).click()
    await expect.poll(() => page.getByRole('row', { name: new RegExp(email) }).count()).toBe(0)
  })
})

describe('the API tokens page', () => {
  it('offers the permissions held, shows the new token once, and revokes it', async () => {
    const name = `ui-token-${randomUUID().slice(0, 8)}`
    const page = await pages.open('admin', '/tokens')
    const form = page.getByRole('form', { name: 'Create an API token' })
    await form.waitFor()
    const offered = await form.getByRole('checkbox').count()
    expect(offered).toBe((await (await clientAs()).auth.me({})).permissions.length)
    await form.getByLabel('Token name').fill(name)
    await form.getByRole('button', { name: 'Create token' }).click()
    await expect.poll(() => form.locator('.field-error').textContent()).toMatch(/.+/)
    await inspect(page, 'tokens-field-error')

    await form.getByLabel('fleet:view').check()
    await form.getByLabel('audit:view').check()
    await form.getByRole('button', { name: 'Create token' }).click()
    const secret = page.getByTestId('new-token')
    await secret.waitFor()
    const token = (await secret.textContent()) ?? ''
    expect(token).toMatch(/^pat_/)
    expect(await page.getByRole('button', { name: 'Copy token' }).count()).toBe(1)
    await inspect(page, 'tokens-shown-once')

    // The token works, with exactly the permissions picked.
    const me = await fetch(`${new URL(page.url()).origin}/api/rpc/auth.me`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: '{}',
    })
    expect(((await me.json()) as { permissions: string[] }).permissions.sort()).toEqual([
      'audit:view',
      'fleet:view',
    ])

    await page.getByRole('button', { name: 'I have stored it' }).click()
    await page.getByRole('button', { name: 'I have stored it' }).waitFor({ state: 'detached' })
    const row = page.getByRole('row', { name: new RegExp(name) })
    await row.waitFor()
    expect(await page.getByText(token).count()).toBe(0)
    await page.reload()
    await settled(page)
    expect(await page.getByText(token).count()).toBe(0)
    expect(await row.textContent()).toContain('active')

    await row.getByRole('button', { name: `Revoke ${name}` }).click()
    await row.getByRole('button', { name: new RegExp(`^Yes, revoke ${name}`) }).click()
    await expect.poll(() => row.textContent()).toMatch(/revoked/)
    await inspect(page, 'tokens-revoked')
  })
})

describe('the audit log page', () => {
  it('filters by the URL and pages back and forth with the cursor', async () => {
    const admin = await clientAs()
    const user = await admin.users.create({
      email: `audited-${randomUUID().slice(0, 8)}@ui.test`,
      password: 'audited-password-123',
      role: 'operator',
    })
    for (const role of ['admin', 'operator', 'admin', 'operator'] as const)
      await admin.users.update({ id: user.id, role })
    const page = await pages.open('admin', `/audit?targetId=${user.id}&limit=2`)
    const status = page.getByText(/^Entries \d/)
    await expect.poll(() => status.textContent()).toBe('Entries 1–2, newest first (page 1).')
    const rows = page.locator('tbody tr')
    expect(await rows.count()).toBe(2)
    expect(await rows.first().textContent()).toContain('user.update')
    await inspect(page, 'audit-page-1')

    await page.getByRole('button', { name: 'Older' }).click()
    await expect.poll(() => status.textContent()).toBe('Entries 3–4, newest first (page 2).')
    await page.getByRole('button', { name: 'Older' }).click()
    await expect.poll(() => status.textContent()).toBe('Entries 5–5, newest first (page 3).')
    expect(await rows.first().textContent()).toContain('user.create')
    expect(await page.getByRole('button', { name: 'Older' }).isDisabled()).toBe(true)
    await inspect(page, 'audit-page-3')
    await page.getByRole('button', { name: 'Newer' }).click()
    await expect.poll(() => status.textContent()).toBe('Entries 3–4, newest first (page 2).')

    // An action link narrows to that action (and the target kept): page one again.
    await rows.first().getByRole('link', { name: 'user.update' }).click()
    await expect.poll(() => status.textContent()).toBe('Entries 1–2, newest first (page 1).')
    expect(new URL(page.url()).searchParams.get('action')).toBe('user.update')
    expect(await page.getByLabel('Action').inputValue()).toBe('user.update')

    await page.getByRole('button', { name: 'Clear filters' }).click()
    await expect.poll(() => new URL(page.url()).search).toBe('?limit=2')
    await page.getByLabel('Action').fill('x'.repeat(101))
    await page.getByRole('button', { name: 'Show entries' }).click()
    await expect.poll(() => page.locator('.field-error').textContent()).toMatch(/.+/)
    await inspect(page, 'audit-field-error')
  })

  it('searches the log by the text an action, actor or target contains, kept in the URL', async () => {
    const admin = await clientAs()
    const user = await admin.users.create({
      email: `searched-${randomUUID().slice(0, 8)}@ui.test`,
      password: 'searched-password-123',
      role: 'operator',
    })
    await admin.users.update({ id: user.id, role: 'admin' })
    const page = await pages.open('admin', '/audit')
    await page.getByLabel('Search entries').fill(user.id.slice(0, 13).toUpperCase())
    const status = page.getByText(/^Entries \d|^No entry/)
    await expect.poll(() => status.textContent()).toBe('Entries 1–2, newest first (page 1).')
    expect(new URL(page.url()).searchParams.get('search')).toBe(user.id.slice(0, 13).toUpperCase())
    const rows = page.locator('tbody tr')
    expect(await rows.first().textContent()).toContain('user.update')
    expect(await rows.last().textContent()).toContain('user.create')
  })
})
