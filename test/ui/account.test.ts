import { describe, expect, it } from 'vitest'
import { createUser, signIn } from './api.ts'
import { browserPages, inspect } from './helpers.ts'

// A user's own account page: changing their password names the wrong field, keeps this session and signs the
// user's other sessions out.

const pages = browserPages()

describe('the account page', () => {
  it('changes the signed-in user’s password, explaining a wrong current password, and signs other sessions out', async () => {
    const user = await createUser('operator')
    const elsewhere = await pages.open(user, '/')
    const page = await pages.open(user, '/')
    await page.getByRole('link', { name: 'Account' }).click()
    await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor()
    expect(await page.getByText(user.email).count()).toBeGreaterThan(0)
    const form = page.getByRole('form', { name: 'Change your password' })
    await inspect(page, 'account')

    await form.getByLabel('Current password').fill('not-my-password-at-all')
    await form.getByLabel('New password', { exact: true }).fill('brand-new-password-1')
    await form.getByLabel('New password again').fill('brand-new-password-1')
    await form.getByRole('button', { name: 'Change password' }).click()
    await expect.poll(() => form.locator('.field-error').textContent()).toMatch(/not your current password/)
    await inspect(page, 'account-wrong-current')

    await form.getByLabel('Current password').fill(user.password)
    await form.getByLabel('New password again').fill('brand-new-password-2')
    await form.getByRole('button', { name: 'Change password' }).click()
    await expect
      .poll(() => form.getByRole('alert').allTextContents())
      .toEqual(['The two new passwords differ.'])

    await form.getByLabel('New password again').fill('brand-new-password-1')
    await form.getByRole('button', { name: 'Change password' }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toMatch(/password is changed/)
    expect(await form.getByLabel('Current password').inputValue()).toBe('')
    await inspect(page, 'account-changed')

    // This session stays; the other browser is signed out; the new password signs in, the old one does not.
    await page.reload()
    await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor()
    await elsewhere.reload()
    await elsewhere.getByRole('form', { name: 'Sign in' }).waitFor()
    await signIn({ email: user.email, password: 'brand-new-password-1' })
    await expect(signIn(user)).rejects.toThrow(/401/)
  })
})
