import { type IncomingMessage, request as plainRequest } from 'node:http'
import { request as tlsRequest } from 'node:https'
import { isIP, type LookupFunction } from 'node:net'
import { Readable } from 'node:stream'
import { checkHttpWith, type HttpCheckConfig, type HttpSent } from '../../src/probes/checks/http-judge.ts'
import type { Verdict } from '../../src/probes/checks/verdict.ts'
import type { Vet } from './destination.ts'
import { errorText } from './target.ts'

const METHODS = new Set(['GET', 'HEAD'])
const NO_BODY_STATUSES = new Set([204, 205, 304])

/** A lookup that answers the vetted address whatever it is asked: the connection goes where the rule looked. */
function pinned(address: string): LookupFunction {
  const family = isIP(address)
  return (_name, options, callback) => {
    if (options.all) callback(null, [{ address, family }])
    else callback(null, address, family)
  }
}

function asResponse(answer: IncomingMessage, method: string): HttpSent {
  const status = answer.statusCode ?? 0
  if (status < 200 || status > 599) {
    answer.destroy()
    return { problem: `the server answered HTTP ${status}, which is not a final status` }
  }
  const headers = new Headers()
  for (let i = 0; i + 1 < answer.rawHeaders.length; i += 2) {
    try {
      headers.append(answer.rawHeaders[i] as string, answer.rawHeaders[i + 1] as string)
    } catch {
      // A header fetch would refuse too: left out.
    }
  }
  const empty = method === 'HEAD' || NO_BODY_STATUSES.has(status)
  if (empty) answer.resume()
  const body = empty ? null : (Readable.toWeb(answer) as unknown as ReadableStream<Uint8Array>)
  return { response: new Response(body, { status, headers }) }
}

/**
 * One GET or HEAD from this node, never following a redirect (checkHttpWith follows them, each hop through
 * here): the URL's host is vetted, and the request goes to the vetted address with the URL's name kept as the
 * Host header and TLS server name.
 */
async function sendFromNode(url: string, method: string, timeoutMs: number, vet: Vet): Promise<HttpSent> {
  if (!METHODS.has(method))
    return { problem: `refused: a node's http checks send GET or HEAD only, not ${method}` }
  if (!URL.canParse(url)) return { problem: `refused: ${url} is not a URL` }
  const target = new URL(url)
  const secure = target.protocol === 'https:'
  if (!secure && target.protocol !== 'http:')
    return { problem: `refused: ${target.protocol} is not http or https` }
  const started = Date.now()
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1')
  const vetted = await vet(host, Number(target.port || (secure ? 443 : 80)), timeoutMs)
  if ('problem' in vetted) return vetted
  const remaining = timeoutMs - (Date.now() - started)
  if (remaining <= 0) return { timedOut: true }
  const signal = AbortSignal.timeout(remaining)
  return new Promise((resolve) => {
    const request = (secure ? tlsRequest : plainRequest)(
      target.href,
      {
        method,
        agent: false,
        lookup: pinned(vetted.address),
        headers: { 'user-agent': 'hosting-panel-agent check' },
        signal,
      },
      (answer) => resolve(asResponse(answer, method)),
    )
    // Kept for the request's whole life: an abort after the answer came errors it again.
    request.on('error', (error) =>
      resolve(signal.aborted ? { timedOut: true } : { problem: `request failed: ${errorText(error)}` }),
    )
    request.end()
  })
}

/** Requests `url` from this node and judges the answer as the edge does (http-judge.ts). */
export function checkHttp(url: string, config: HttpCheckConfig, vet: Vet): Promise<Verdict> {
  return checkHttpWith((hop, method, timeoutMs) => sendFromNode(hop, method, timeoutMs, vet), url, config)
}
