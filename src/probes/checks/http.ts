import { readCapped } from '../../outside/counterpart-body'
import { fetchOutbound, OUTBOUND_REFUSAL, type OutboundAnswer } from '../../outside/fetch-outbound'
import type { HttpConfig } from '../config'
import { down, type Verdict } from './verdict'

const MAX_REDIRECTS = 5
const KEYWORD_WINDOW_BYTES = 64 * 1024
const REDIRECTS = new Set([301, 302, 303, 307, 308])

/** Why no answer came, for people: the hop it happened on, then the deadline, the rule or the error. */
function unanswered(
  answer: Extract<OutboundAnswer, { answered: false }>,
  hop: number,
  timeoutMs: number,
): string {
  const why = answer.timedOut
    ? `no answer within ${timeoutMs} ms`
    : answer.reason.startsWith(OUTBOUND_REFUSAL)
      ? answer.reason
      : `request failed: ${answer.reason}`
  return hop === 0 ? why : `redirect ${hop}: ${why}`
}

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
  config: HttpConfig,
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
 * Requests `url` through fetchOutbound (deadline, the outbound rule at send time, no redirect followed by fetch)
 * and judges the answer. With followRedirects, up to 5 redirects are followed here, each hop sent through
 * fetchOutbound like the first and all of them within the one timeout; latency is until the last answer's headers.
 */
export async function checkHttp(url: string, config: HttpConfig): Promise<Verdict> {
  const started = Date.now()
  let method: string = config.method
  let current = url
  for (let hop = 0; ; hop++) {
    const remaining = config.timeoutMs - (Date.now() - started)
    if (remaining <= 0) return down(`redirect ${hop}: no answer within ${config.timeoutMs} ms`)
    const answer = await fetchOutbound(current, { method }, remaining)
    if (!answer.answered) return down(unanswered(answer, hop, config.timeoutMs))
    const { response } = answer
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
