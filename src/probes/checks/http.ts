import { fetchOutbound, OUTBOUND_REFUSAL } from '../../outside/fetch-outbound'
import type { HttpConfig } from '../config'
import { checkHttpWith, type HttpSent } from './http-judge'
import type { Verdict } from './verdict'

/** One request through fetchOutbound (deadline, the outbound rule at send time, no redirect followed by fetch). */
async function sendOutbound(url: string, method: string, timeoutMs: number): Promise<HttpSent> {
  const answer = await fetchOutbound(url, { method }, timeoutMs)
  if (answer.answered) return { response: answer.response }
  if (answer.timedOut) return { timedOut: true }
  return {
    problem: answer.reason.startsWith(OUTBOUND_REFUSAL) ? answer.reason : `request failed: ${answer.reason}`,
  }
}

/** Requests `url` from the edge, each hop under the outbound rule, and judges the answer (http-judge.ts). */
export function checkHttp(url: string, config: HttpConfig): Promise<Verdict> {
  return checkHttpWith(sendOutbound, url, config)
}
