import { describe, expect, it } from 'vitest'
import { workerEnv } from './helpers/changelog'
import { admin, createTarget, HOOKS, SECRET, type Target } from './helpers/changelog-webhooks'
import { call, ok } from './helpers/http'
import { operatorSession } from './helpers/principals'

describe('changelog.webhooks targets', () => {
  it('should store the secret encrypted and never return it', async () => {
    const created = await createTarget(`${HOOKS}/secret-check`)
    expect(created).toMatchObject({
      url: `${HOOKS}/secret-check`,
      enabled: true,
      hasSecret: true,
      disabledReason: null,
    })
    expect(created).not.toHaveProperty('secret')
    const listed = await call('changelog.webhooks.list', {}, admin)
    expect(listed.status, listed.text).toBe(200)
    expect(listed.text).not.toContain(SECRET)
    const row = await workerEnv.DB.prepare('SELECT secret_sealed FROM changelog_webhook_targets WHERE id = ?')
      .bind(created.id)
      .first<{ secret_sealed: string }>()
    expect(row?.secret_sealed).toMatch(/^v1\./)
    expect(row?.secret_sealed).not.toContain(SECRET)
    expect(listed.text).not.toContain(row?.secret_sealed)
  })

  it('should update and remove a target, and audit each change', async () => {
    const target = await createTarget(`${HOOKS}/lifecycle`)
    const updated = await ok<Target>(
      'changelog.webhooks.update',
      { id: target.id, url: `${HOOKS}/moved`, secret: 'a-brand-new-secret-value', enabled: false },
      admin,
    )
    expect(updated).toMatchObject({ url: `${HOOKS}/moved`, enabled: false, hasSecret: true })
    expect(await ok('changelog.webhooks.remove', { id: target.id }, admin)).toEqual({ removed: true })
    const missing = await call('changelog.webhooks.update', { id: target.id, enabled: true }, admin)
    expect(missing.status, missing.text).toBe(404)
    const audit = await ok<{ entries: { action: string }[] }>('audit.list', { targetId: target.id }, admin)
    expect(audit.entries.map((e) => e.action).reverse()).toEqual([
      'changelog.webhook-create',
      'changelog.webhook-update',
      'changelog.webhook-remove',
    ])
  })

  it('should let settings:view read and only settings:edit write', async () => {
    const operator = await operatorSession(admin)
    expect((await call('changelog.webhooks.list', {}, operator)).status).toBe(200)
    expect((await call('changelog.webhooks.deliveries', {}, operator)).status).toBe(200)
    const refused = await call('changelog.webhooks.create', { url: `${HOOKS}/x`, secret: SECRET }, operator)
    expect(refused.status, refused.text).toBe(403)
  })

  it.each([
    ['plain http', 'http://hooks.example.test/x'],
    ['loopback', 'https://127.0.0.1/x'],
    ['loopback by name', 'https://localhost:8787/x'],
    ['a private address', 'https://10.1.2.3/x'],
    ['a private 172.16/12 address', 'https://172.20.0.1/x'],
    ['link-local', 'https://169.254.169.254/latest'],
    ['IPv6 loopback', 'https://[::1]/x'],
    ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/x'],
    ['IPv6 unique-local', 'https://[fd00::1]/x'],
    ['a non-http scheme', 'ftp://hooks.example.test/x'],
    ['credentials in the URL', 'https://user:pass@hooks.example.test/x'],
  ])('should refuse %s in production, naming url', async (_what, url) => {
    expect(workerEnv.ENVIRONMENT).toBe('production')
    const res = await call<{ issues?: { path: string }[] }>(
      'changelog.webhooks.create',
      { url, secret: SECRET },
      admin,
    )
    expect(res.status, res.text).toBe(400)
    expect(res.body.issues?.map((i) => i.path)).toEqual(['url'])
  })

  it('should allow a loopback http target in local development', async () => {
    workerEnv.ENVIRONMENT = 'development'
    try {
      const target = await createTarget('http://127.0.0.1:9999/hook', false)
      expect(target.url).toBe('http://127.0.0.1:9999/hook')
      const refused = await call(
        'changelog.webhooks.create',
        { url: 'ftp://127.0.0.1/x', secret: SECRET },
        admin,
      )
      expect(refused.status, refused.text).toBe(400)
    } finally {
      workerEnv.ENVIRONMENT = 'production'
    }
  })
})
