import type { Vhost } from '../src/agent-contract/v1.ts'

const ASK_TIMEOUT_MS = 5_000

// Caddy's own convention, which the app's endpoint already speaks: the name goes in `domain`, beside whatever
// query the URL carries.
async function appAllows(askUrl: string, hostname: string): Promise<boolean> {
  try {
    const url = new URL(askUrl)
    url.searchParams.set('domain', hostname)
    const response = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(ASK_TIMEOUT_MS) })
    await response.body?.cancel()
    return response.status === 200
  } catch {
    return false
  }
}

/**
 * Whether the proxy may obtain a certificate for `hostname` now: never for a name outside the applied state;
 * with the vhost's `askUrl`, only when the app answers 200 within 5 s (any other answer, a timeout or an error
 * denies); without one, only when the panel marked the vhost issuable.
 */
export function mayIssue(vhost: Vhost | undefined, hostname: string): Promise<boolean> {
  if (!vhost) return Promise.resolve(false)
  if (vhost.askUrl) return appAllows(vhost.askUrl, hostname)
  return Promise.resolve(vhost.issuable ?? true)
}
