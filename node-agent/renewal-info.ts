import { request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { z } from 'zod'

// One question to a CA's ACME Renewal Information (RFC 9773): its directory names the `renewalInfo` resource
// (or does not: the CA publishes no windows), and `GET <renewalInfo>/<certID>` answers the suggested window and,
// in Retry-After, when to ask again. Unauthenticated GETs, so no ACME account or nonce is involved.

/** A CA's ACME directory and the roots its TLS chains to (null: the system's). */
export interface AcmeDirectory {
  url: string
  ca: string | null
}

export interface SuggestedWindow {
  start: string
  end: string
  explanationUrl?: string
}

export type RenewalInfo =
  | {
      kind: 'window'
      window: SuggestedWindow
      /** null: the CA sent no valid Retry-After. */
      retryAfterMs: number | null
    }
  /** The CA's directory has no renewalInfo. */
  | { kind: 'unpublished' }
  /** `temporary`: a timeout, a refused connection or a 5xx, worth asking again soon; otherwise not. */
  | { kind: 'failed'; temporary: boolean; detail: string }

type Failed = Extract<RenewalInfo, { kind: 'failed' }>

const TIMEOUT_MS = 15_000
const MAX_BODY_BYTES = 65_536
// The directory hardly changes: read once a day. A failed read is kept a little, so a CA that is down is not
// asked for its directory once per certificate.
const DIRECTORY_KEPT_MS = 24 * 3_600_000
const DIRECTORY_FAILURE_KEPT_MS = 10 * 60_000

const Timestamp = z.iso.datetime({ offset: true })
const RenewalInfoSchema = z.object({
  suggestedWindow: z.object({ start: Timestamp, end: Timestamp }),
  explanationURL: z.unknown().optional(),
})
const DirectorySchema = z.object({ renewalInfo: z.url({ protocol: /^https?$/ }).optional() })
const ExplanationSchema = z.url({ protocol: /^https?$/ }).max(1000)

interface Answer {
  status: number
  headers: IncomingHttpHeaders
  body: string
}

function get(url: string, ca: string | null): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = (url.startsWith('https:') ? httpsRequest : httpRequest)(
      url,
      { method: 'GET', headers: { accept: 'application/json' }, timeout: TIMEOUT_MS, ...(ca ? { ca } : {}) },
      (response) => {
        let body = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => {
          body += chunk
          if (body.length > MAX_BODY_BYTES) request.destroy(new Error(`more than ${MAX_BODY_BYTES} bytes`))
        })
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
        )
        response.on('error', reject)
      },
    )
    request.on('timeout', () => request.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)))
    request.on('error', reject)
    request.end()
  })
}

const failed = (temporary: boolean, detail: string): Failed => ({ kind: 'failed', temporary, detail })

function refused(url: string, status: number): Failed {
  return failed(status >= 500, `GET ${url} answered ${status}`)
}

function parsedJson(body: string): unknown {
  try {
    return JSON.parse(body)
  } catch {
    return undefined
  }
}

/** Retry-After in milliseconds from now: delay-seconds or an HTTP-date; null when absent or invalid. */
function retryAfter(header: string | undefined, now: number): number | null {
  if (header === undefined) return null
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000
  const at = Date.parse(header)
  return Number.isNaN(at) ? null : Math.max(0, at - now)
}

export class RenewalInfoClient {
  readonly #now: () => number
  readonly #directories = new Map<string, { until: number; renewalInfo: Promise<string | null | Failed> }>()

  constructor(now: () => number = Date.now) {
    this.#now = now
  }

  /** The CA's answer for the certificate with this certID. */
  ask = async (directory: AcmeDirectory, certId: string): Promise<RenewalInfo> => {
    const base = await this.#renewalInfoUrl(directory)
    if (base === null) return { kind: 'unpublished' }
    if (typeof base !== 'string') return base
    const url = `${base.replace(/\/+$/, '')}/${certId}`
    let answer: Answer
    try {
      answer = await get(url, directory.ca)
    } catch (error) {
      return failed(true, `GET ${url}: ${error instanceof Error ? error.message : String(error)}`)
    }
    if (answer.status !== 200) return refused(url, answer.status)
    const info = RenewalInfoSchema.safeParse(parsedJson(answer.body))
    const window = info.success ? info.data.suggestedWindow : null
    // RFC 9773 §4.2: a window whose end is not after its start counts as no answer at all.
    if (!window || Date.parse(window.end) <= Date.parse(window.start))
      return failed(false, `GET ${url} answered no valid suggestedWindow`)
    const explanation = ExplanationSchema.safeParse(info.data?.explanationURL)
    return {
      kind: 'window',
      window: { ...window, ...(explanation.success ? { explanationUrl: explanation.data } : {}) },
      retryAfterMs: retryAfter(answer.headers['retry-after'], this.#now()),
    }
  }

  #renewalInfoUrl(directory: AcmeDirectory): Promise<string | null | Failed> {
    const kept = this.#directories.get(directory.url)
    if (kept && kept.until > this.#now()) return kept.renewalInfo
    const renewalInfo = this.#readDirectory(directory)
    const entry = { until: Number.POSITIVE_INFINITY, renewalInfo }
    this.#directories.set(directory.url, entry)
    void renewalInfo.then((read) => {
      entry.until =
        this.#now() + (typeof read === 'object' && read ? DIRECTORY_FAILURE_KEPT_MS : DIRECTORY_KEPT_MS)
    })
    return renewalInfo
  }

  async #readDirectory(directory: AcmeDirectory): Promise<string | null | Failed> {
    let answer: Answer
    try {
      answer = await get(directory.url, directory.ca)
    } catch (error) {
      return failed(true, `GET ${directory.url}: ${error instanceof Error ? error.message : String(error)}`)
    }
    if (answer.status !== 200) return refused(directory.url, answer.status)
    const parsed = DirectorySchema.safeParse(parsedJson(answer.body))
    if (!parsed.success) return failed(false, `GET ${directory.url} answered no ACME directory`)
    return parsed.data.renewalInfo ?? null
  }
}
