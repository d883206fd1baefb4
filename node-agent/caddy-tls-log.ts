// Caddy 2.6's own words on certificate issuance: one JSON line per log entry of its tls loggers (certmagic's
// `tls.obtain`, `tls.renew`, `tls.on_demand`) and of the ACME client (`http.acme_client`), which the agent has
// Caddy write to a file of its own (caddy-config.ts). Each line of interest becomes one event; every other line
// (locks, OCSP, cache maintenance) and anything that is not such a line is null.

/** The loggers the agent has Caddy write to its file (Caddy matches these as name prefixes). */
export const TLS_LOGGERS = ['tls.obtain', 'tls.renew', 'tls.on_demand', 'http.acme_client'] as const

export type TlsLogEvent =
  /** A TLS handshake made Caddy obtain on demand: certmagic gives the whole obtain 180 s from here. */
  | { type: 'on_demand'; hostname: string; at: number }
  /** One attempt began (a first obtain or a renewal). */
  | { type: 'attempt'; hostname: string; at: number }
  /** The CA refused one challenge of the attempt, with its problem. */
  | {
      type: 'challenge_failed'
      hostname: string
      at: number
      challengeType: string | null
      problemType: string | null
      detail: string
    }
  /** The attempt failed; `error` is Caddy's text, which holds the CA's problem when there was one. */
  | { type: 'failed'; hostname: string; at: number; error: string }
  /** Caddy will try again after `retryInMs`; null: it gave up (its final attempt). */
  | { type: 'retry'; hostname: string; at: number; retryInMs: number | null }
  | { type: 'obtained'; hostname: string; at: number }

type Entry = Record<string, unknown>

const text = (entry: Entry, key: string): string | null => {
  const value = entry[key]
  return typeof value === 'string' && value !== '' ? value : null
}

// "will retry" names no identifier field: its error starts "[<name>] Obtain: " or "[<name>] Renew: ".
function retriedName(entry: Entry): string | null {
  return /^\[([^\]\s]+)\] (?:Obtain|Renew): /.exec(text(entry, 'error') ?? '')?.[1] ?? null
}

function eventOf(entry: Entry, at: number): TlsLogEvent | null {
  const logger = text(entry, 'logger')
  const msg = text(entry, 'msg')
  const identifier = text(entry, 'identifier')?.toLowerCase() ?? null
  if (logger === 'tls.on_demand' && msg === 'obtaining new certificate') {
    const hostname = text(entry, 'server_name')?.toLowerCase()
    return hostname ? { type: 'on_demand', hostname, at } : null
  }
  if (logger === 'http.acme_client' && msg === 'challenge failed' && identifier) {
    const detail = text(entry, 'error') ?? 'no detail given'
    return {
      type: 'challenge_failed',
      hostname: identifier,
      at,
      challengeType: text(entry, 'challenge_type'),
      problemType: text(entry, 'problem_type'),
      detail,
    }
  }
  if (logger !== 'tls.obtain' && logger !== 'tls.renew') return null
  if (msg === 'will retry' || msg === 'final attempt; giving up') {
    const hostname = retriedName(entry)
    const seconds = entry.retrying_in
    const retryInMs = msg === 'will retry' && typeof seconds === 'number' ? seconds * 1000 : null
    return hostname ? { type: 'retry', hostname, at, retryInMs } : null
  }
  if (!identifier) return null
  switch (msg) {
    case 'obtaining certificate':
    case 'renewing certificate':
      return { type: 'attempt', hostname: identifier, at }
    case 'could not get certificate from issuer':
      return { type: 'failed', hostname: identifier, at, error: text(entry, 'error') ?? 'no error given' }
    case 'certificate obtained successfully':
    case 'certificate renewed successfully':
      return { type: 'obtained', hostname: identifier, at }
    default:
      return null
  }
}

/** The event of one log line, or null. */
export function parseTlsLogLine(line: string): TlsLogEvent | null {
  let entry: unknown
  try {
    entry = JSON.parse(line)
  } catch {
    return null
  }
  if (typeof entry !== 'object' || entry === null) return null
  const ts = (entry as Entry).ts
  if (typeof ts !== 'number' || !Number.isFinite(ts)) return null
  return eventOf(entry as Entry, Math.round(ts * 1000))
}
