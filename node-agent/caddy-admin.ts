import { execFile } from 'node:child_process'
import { request } from 'node:http'
import path from 'node:path'

const ADMIN_TIMEOUT_MS = 30_000

/**
 * Where Caddy's admin API listens: a unix socket (`unix//absolute/path.sock`, Caddy's network-address form, with
 * the `|0600` mode suffix Caddy 2.7 and later read) or TCP (`host:port`, or `http://host:port`). `listen` is what
 * every config the agent loads keeps as `admin.listen`, so Caddy never moves.
 */
export type CaddyAdminAddress = { listen: string } & ({ socketPath: string } | { host: string; port: number })

/** Reads an admin address; throws saying which forms it takes. */
export function parseCaddyAdmin(address: string): CaddyAdminAddress {
  const unix = /^unix\/(\/[^|]+)(\|0[0-7]{3})?$/.exec(address)
  if (unix?.[1]) return { listen: address, socketPath: path.normalize(unix[1]) }
  const tcp = /^(?:http:\/\/)?(?:\[([0-9a-fA-F:.]+)\]|([^:/[\]]+)):(\d{1,5})\/*$/.exec(address)
  const host = tcp?.[1] ?? tcp?.[2]
  const port = Number(tcp?.[3])
  if (!host || !(port >= 1 && port <= 65_535))
    throw new Error(`Caddy's admin address ${address} is neither unix//<absolute path> nor host:port`)
  return { listen: host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`, host, port }
}

/** One request to the admin API; throws when Caddy cannot be reached. */
function adminRequest(
  address: string,
  method: string,
  route: string,
  options: { body?: string; headers?: Record<string, string>; timeoutMs: number },
): Promise<{ status: number; text: string }> {
  const admin = parseCaddyAdmin(address)
  // Over a socket, Caddy allows only an empty Host (its default origin check refuses `localhost`).
  const where = 'socketPath' in admin ? { socketPath: admin.socketPath, setHost: false } : admin
  const headers = { ...('socketPath' in admin ? { host: '' } : {}), ...options.headers }
  return new Promise((resolve, reject) => {
    const sent = request(
      { ...where, method, path: route, headers, signal: AbortSignal.timeout(options.timeoutMs) },
      (answer) => {
        let text = ''
        answer.setEncoding('utf8')
        answer.on('data', (chunk: string) => {
          text += chunk
        })
        answer.on('end', () => resolve({ status: answer.statusCode ?? 0, text }))
        answer.on('error', reject)
      },
    )
    sent.on('error', reject)
    sent.end(options.body)
  })
}

/** Caddy answered the load: accepted, or refused with its own error text (the old config keeps serving). */
export type LoadResult = { accepted: true } | { accepted: false; error: string }

/**
 * Replaces Caddy's whole config through its admin API (`POST /load`). `force` reloads even an unchanged config
 * (`Cache-Control: must-revalidate`), which in Caddy 2.6 starts a fresh certificate cache. Throws when Caddy
 * cannot be reached.
 */
export async function loadCaddyConfig(admin: string, config: unknown, force = false): Promise<LoadResult> {
  const { status, text } = await adminRequest(admin, 'POST', '/load', {
    body: JSON.stringify(config),
    headers: { 'content-type': 'application/json', ...(force ? { 'cache-control': 'must-revalidate' } : {}) },
    timeoutMs: ADMIN_TIMEOUT_MS,
  })
  if (status >= 200 && status < 300) return { accepted: true }
  let error = text.trim()
  try {
    const parsed: unknown = JSON.parse(text)
    if (parsed && typeof parsed === 'object' && 'error' in parsed && typeof parsed.error === 'string') {
      error = parsed.error
    }
  } catch {}
  return { accepted: false, error: error || `Caddy answered ${status}` }
}

/** The config Caddy runs now (`GET /config/`); throws when Caddy cannot be reached or refuses. */
export async function runningCaddyConfig(admin: string): Promise<unknown> {
  const { status, text } = await adminRequest(admin, 'GET', '/config/', { timeoutMs: 5000 })
  if (status !== 200) throw new Error(`Caddy's admin API answered ${status}: ${text.trim()}`)
  return JSON.parse(text)
}

/** Whether Caddy's admin API answers. */
export async function caddyReachable(admin: string): Promise<boolean> {
  return runningCaddyConfig(admin).then(
    () => true,
    () => false,
  )
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
