import { readCapped } from '../../outside/counterpart-body.ts'
import type { HttpConfig } from '../config'
import { down, type Verdict } from './verdict.ts'

// The http check's logic, shared by the edge (http.ts, through fetchOutbound) and the node agent (through Node's
// fetch): the redirects it follows and how it judges the answer. Only how one request is sent differs.

/** What an http check reads of the probe's config. */
export type HttpCheckConfig = Pick<
  HttpConfig,
  'method' | 'expectedStatus' | 'keyword' | 'slowMs' | 'followRedirects' | 'timeoutMs'
>

/** One request's outcome: the answer, no answer within the time left, or why it failed (one line). */
export type HttpSent = { response: Response } | { timedOut: true } | { problem: string }

/** Sends one request, never following a redirect, within `timeoutMs`. */
export type HttpSend = (url: string, method: string, timeoutMs: number) => Promise<HttpSent>

const MAX_REDIRECTS = 5
const KEYWORD_WINDOW_BYTES = 64 * 1024
const REDIRECTS = new Set([301, 302, 303, 307, 308])

const expected = ({ min, max }: HttpConfig['expectedStatus']) => (min === max ? `${min}` : `${min}–${max}`)

/** Whether the keyword is in the body's first 64 KB; null when the body did not arrive in time. */
async function holdsKeyword(response: Response, keyword: string): Promise<boolean | null> {
  try {
    // Re-wrapped without headers: readCapped reads nothing when the declared length passes the cap, and a long
    // page still has its first 64 KB to search.
    const { text } = await readCapped(new Response(response.body), KEYWORD_WINDOW_BYTES)
    return text.includes(keyword)
  } catch {
    return null
  }
}

/** The answer's verdict: status range, then keyword, then speed. */
async function judge(
  response: Response,
  hops: number,
  latencyMs: number,
  config: HttpCheckConfig,
): Promise<Verdict> {
  const answered = `HTTP ${response.status}${hops === 0 ? '' : ` after ${hops} redirect${hops === 1 ? '' : 's'}`}`
  const { min, max } = config.expectedStatus
  if (response.status < min || response.status > max) {
    await response.body?.cancel()
    return { outcome: 'down', latencyMs, detail: `${answered} (expected ${expected(config.expectedStatus)})` }
  }
  if (config.keyword === undefined) await response.body?.cancel()
  else {
    const found = await holdsKeyword(response, config.keyword)
    if (found === null)
      return {
        outcome: 'down',
        latencyMs,
        detail: `${answered}, but the body did not arrive within ${config.timeoutMs} ms`,
      }
    if (!found)
      return {
        outcome: 'down',
        latencyMs,
        detail: `${answered}, but "${config.keyword}" is not in the first 64 KB of the body`,
      }
  }
  if (config.slowMs !== undefined && latencyMs > config.slowMs)
    return {
      outcome: 'degraded',
      latencyMs,
      detail: `${answered} in ${latencyMs} ms (slow above ${config.slowMs} ms)`,
    }
  return { outcome: 'up', latencyMs, detail: answered }
}

/**
 * Requests `url` with `send` and judges the answer. With followRedirects, up to 5 redirects are followed here,
 * each hop sent like the first and all of them within the one timeout; latency is until the last answer's
 * headers.
 */
export async function checkHttpWith(send: HttpSend, url: string, config: HttpCheckConfig): Promise<Verdict> {
  const started = Date.now()
  let method: string = config.method
  let current = url
  for (let hop = 0; ; hop++) {
    const prefix = hop === 0 ? '' : `redirect ${hop}: `
    const remaining = config.timeoutMs - (Date.now() - started)
    if (remaining <= 0) return down(`${prefix}no answer within ${config.timeoutMs} ms`)
    const sent = await send(current, method, remaining)
    if ('timedOut' in sent) return down(`${prefix}no answer within ${config.timeoutMs} ms`)
    if ('problem' in sent) return down(`${prefix}${sent.problem}`)
    const { response } = sent
    const location = response.headers.get('location')
    if (!config.followRedirects || !REDIRECTS.has(response.status) || location === null)
      return judge(response, hop, Date.now() - started, config)
    await response.body?.cancel()
    if (hop === MAX_REDIRECTS) return down(`more than ${MAX_REDIRECTS} redirects`)
    if (!URL.canParse(location, current)) return down(`redirect ${hop + 1} has a Location that is not a URL`)
    current = new URL(location, current).href
    // As browsers do: 303 always, and 301/302 after a POST, continue with GET.
    if (response.status === 303 || (response.status !== 307 && response.status !== 308 && method === 'POST'))
      method = 'GET'
  }
}
