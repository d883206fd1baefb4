import { describe, expect, it } from 'vitest'
import { adminCredentials } from './api.ts'
import { browserPages, inspect, settled } from './helpers.ts'

// The frame every page lives in: the root URL signs in, the admin lands on the overview, sign-out signs out.

const pages = browserPages()

describe('the shell', () => {
  it('opens on the sign-in page and explains a wrong password', async () => {
    const page = await pages.open(null)
    await expect.poll(() => page.title()).toBe('Hosting Panel')
    const form = page.getByRole('form', { name: 'Sign in' })
    await form.waitFor()
    await inspect(page, 'shell-sign-in')
    await form.getByLabel('Email').fill(adminCredentials().email)
    await form.getByLabel('Password').fill('not-the-password-123')
    await form.getByRole('button', { name: 'Sign in' }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/email or password/i)
    await inspect(page, 'shell-sign-in-wrong-password')
  })

  it('signs the admin in to the overview and navigation, and out again', async () => {
    const page = await pages.open(null)
    const form = page.getByRole('form', { name: 'Sign in' })
    await form.getByLabel('Email').fill(adminCredentials().email)
    await form.getByLabel('Password').fill(adminCredentials().password)
    await form.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
    await settled(page)
    const nav = page.getByRole('navigation', { name: 'Main' })
    expect(await nav.getByRole('link').allTextContents()).toContain('Overview')
    expect(await page.getByText(`Signed in as ${adminCredentials().email}`).count()).toBe(1)
    await inspect(page, 'shell-overview')
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('form', { name: 'Sign in' }).waitFor()
    await page.reload()
    await page.getByRole('form', { name: 'Sign in' }).waitFor()
    await inspect(page, 'shell-signed-out')
  })
})
