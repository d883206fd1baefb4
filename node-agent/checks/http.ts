import { checkHttpWith, type HttpCheckConfig, type HttpSent } from '../../src/probes/checks/http-judge.ts'
import type { Verdict } from '../../src/probes/checks/verdict.ts'
import { errorText } from './target.ts'

/** One request with Node's fetch from this node, never following a redirect (checkHttpWith follows them). */
async function sendFromNode(url: string, method: string, timeoutMs: number): Promise<HttpSent> {
  try {
    const response = await fetch(url, {
      method,
      redirect: 'manual',
      headers: { 'user-agent': 'hosting-panel-agent check' },
      signal: AbortSignal.timeout(timeoutMs),
    })
    return { response }
  } catch (error) {
    if (error instanceof DOMException && error.name === 'TimeoutError') return { timedOut: true }
    return { problem: `request failed: ${errorText(error)}` }
  }
}

/** Requests `url` from this node and judges the answer as the edge does (http-judge.ts). */
export function checkHttp(url: string, config: HttpCheckConfig): Promise<Verdict> {
  return checkHttpWith(sendFromNode, url, config)
}
