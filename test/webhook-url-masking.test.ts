import { env } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import { maskUrl } from '../src/lib/mask-url'
import { siteWithToken } from './custom-hostnames/fixture'
import { type Caller, ok } from './helpers/http'
import { adminSession, operatorSession, tokenFor } from './helpers/principals'

// Userinfo is refused when a URL is saved (outbound-url.ts); query and fragment are where credentials remain.
const HOOK = 'https://hooks.masking-example.com/in/abc?key=URLSECRET-1&x=2#frag'
const MASKED = 'https://hooks.masking-example.com/in/abc?***#***'

let admin: Caller
let operator: Caller

beforeAll(async () => {
  admin = await adminSession()
  operator = await operatorSession(admin)
})

describe('maskUrl', () => {
  it('should hide userinfo, query and fragment and keep scheme, host, port and path', () => {
    expect(maskUrl('https://user:pa55@hooks.example/in?key=1#f')).toBe('https://***@hooks.example/in?***#***')
    expect(maskUrl('https://hooks.example:8443/a/b?token=1')).toBe('https://hooks.example:8443/a/b?***')
    expect(maskUrl('https://hooks.example/a')).toBe('https://hooks.example/a')
    expect(maskUrl('not a url')).toBe('not a url')
  })
})

describe('changelog webhook URLs', () => {
  it('should show the URL in full to settings:edit and masked to settings:view only, and never keep it in the audit log', async () => {
    const created = await ok<{ id: string; url: string }>(
      'changelog.webhooks.create',
      { url: HOOK, secret: 'a-webhook-secret-0123456789' },
      admin,
    )
    expect(created.url).toBe(HOOK)
    await ok('changelog.webhooks.update', { id: created.id, url: `${HOOK}&more=1` }, admin)
    const urlSeenBy = async (caller: Caller) =>
      (await ok<{ id: string; url: string }[]>('changelog.webhooks.list', {}, caller)).find(
        (t) => t.id === created.id,
      )?.url
    expect(await urlSeenBy(admin)).toBe(`${HOOK}&more=1`)
    expect(await urlSeenBy(operator)).toBe(MASKED)
    const viewToken = await tokenFor(admin, ['settings:view'])
    expect(await urlSeenBy(viewToken)).toBe(MASKED)
    await ok('changelog.webhooks.remove', { id: created.id }, admin)

    const stored = await env.DB.prepare(
      "SELECT action, detail FROM audit_log WHERE action LIKE 'changelog.webhook-%' AND target_id = ? ORDER BY id",
    )
      .bind(created.id)
      .all<{ action: string; detail: string }>()
    expect(stored.results.map((r) => r.action)).toEqual([
      'changelog.webhook-create',
      'changelog.webhook-update',
      'changelog.webhook-remove',
    ])
    for (const row of stored.results) {
      expect(row.detail).not.toContain('URLSECRET')
      expect(JSON.parse(row.detail).url).toBe(MASKED)
    }
  })

  it('should mask URLs in audit entries written before masking, for admins too', async () => {
    await env.DB.prepare(
      "INSERT INTO audit_log (action, principal_kind, principal_id, target_id, outcome, request_id, detail, created_at) VALUES ('changelog.webhook-create', 'session', NULL, 'old-target', 'success', 'old-request', ?, ?)",
    )
      .bind(JSON.stringify({ url: HOOK, nested: [{ webhookUrl: HOOK }], note: 'kept' }), Date.now())
      .run()
    const page = await ok<{ entries: { detail: unknown }[] }>('audit.list', { targetId: 'old-target' }, admin)
    expect(page.entries[0]?.detail).toEqual({ url: MASKED, nested: [{ webhookUrl: MASKED }], note: 'kept' })
  })
})

describe('probe alert webhook URLs', () => {
  it('should show notifyConfig.webhookUrl in full to probes:manage and masked to probes:view only', async () => {
    const probe = await ok<{ id: string; notifyConfig: { webhookUrl: string } }>(
      'probes.create',
      {
        name: 'masked-hook',
        type: 'http',
        targetKind: 'external',
        target: 'https://status.masking-example.com/',
        notifyConfig: { webhookUrl: HOOK },
        webhookSecret: 'probe-webhook-secret-0123456789',
      },
      admin,
    )
    expect(probe.notifyConfig.webhookUrl).toBe(HOOK)
    const seenBy = async (caller: Caller) => {
      const listed = (
        await ok<{ id: string; notifyConfig: { webhookUrl: string } }[]>('probes.list', {}, caller)
      ).find((p) => p.id === probe.id)
      const got = await ok<{ notifyConfig: { webhookUrl: string } }>('probes.get', { id: probe.id }, caller)
      return [listed?.notifyConfig.webhookUrl, got.notifyConfig.webhookUrl]
    }
    expect(await seenBy(admin)).toEqual([HOOK, HOOK])
    expect(await seenBy(operator)).toEqual([MASKED, MASKED])
    expect(await seenBy(await tokenFor(admin, ['probes:view']))).toEqual([MASKED, MASKED])
    // Its alerts still go to the full URL: masking is for reads only.
    const stored = await env.DB.prepare('SELECT notify_config FROM probes WHERE id = ?')
      .bind(probe.id)
      .first<{ notify_config: string }>()
    expect(JSON.parse(stored?.notify_config ?? '{}').webhookUrl).toBe(HOOK)
  })
})

describe('the custom hostnames ask URL', () => {
  it('should show the ask URL in full to settings:edit and masked to the operator', async () => {
    const site = await siteWithToken(admin)
    const askUrl = 'https://app.masking-example.com/tls/ask?key=ASKSECRET'
    await ok('customHostnames.settings.set', { siteId: site.siteId, allowedZones: [], askUrl }, admin)
    const seenBy = async (caller: Caller) =>
      (await ok<{ askUrl: string }>('customHostnames.settings.get', { siteId: site.siteId }, caller)).askUrl
    expect(await seenBy(admin)).toBe(askUrl)
    expect(await seenBy(operator)).toBe('https://app.masking-example.com/tls/ask?***')
    const entry = await env.DB.prepare(
      "SELECT detail FROM audit_log WHERE action = 'custom-hostname.settings-set' AND target_id = ?",
    )
      .bind(site.siteId)
      .first<{ detail: string }>()
    expect(JSON.parse(entry?.detail ?? '{}').askUrl).toBe('https://app.masking-example.com/tls/ask?***')
  })
})
