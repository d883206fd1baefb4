import { execFile } from 'node:child_process'

const ADMIN_TIMEOUT_MS = 30_000

/** Caddy answered the load: accepted, or refused with its own error text (the old config keeps serving). */
export type LoadResult = { accepted: true } | { accepted: false; error: string }

/**
 * Replaces Caddy's whole config through its admin API (`POST /load`). `force` reloads even an unchanged config
 * (`Cache-Control: must-revalidate`), which in Caddy 2.6 starts a fresh certificate cache. Throws when Caddy
 * cannot be reached.
 */
export async function loadCaddyConfig(adminUrl: string, config: unknown, force = false): Promise<LoadResult> {
  const response = await fetch(`${adminUrl}/load`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(force ? { 'cache-control': 'must-revalidate' } : {}) },
    body: JSON.stringify(config),
    signal: AbortSignal.timeout(ADMIN_TIMEOUT_MS),
  })
  const text = await response.text()
  if (response.ok) return { accepted: true }
  let error = text.trim()
  try {
    const parsed: unknown = JSON.parse(text)
    if (parsed && typeof parsed === 'object' && 'error' in parsed && typeof parsed.error === 'string') {
      error = parsed.error
    }
  } catch {}
  return { accepted: false, error: error || `Caddy answered ${response.status}` }
}

/** Whether Caddy's admin API answers. */
export async function caddyReachable(adminUrl: string): Promise<boolean> {
  try {
    const response = await fetch(`${adminUrl}/config/`, { signal: AbortSignal.timeout(5000) })
    await response.body?.cancel()
    return response.ok
  } catch {
    return false
  }
}

/** `caddy version`'s first word (Caddy 2.6's admin API does not report its version), or null. */
export function caddyVersion(binary: string): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(binary, ['version'], { timeout: 5000 }, (error, stdout) => {
      const word = String(stdout).trim().split(/\s+/)[0]
      resolve(error || !word ? null : word)
    })
  })
}
