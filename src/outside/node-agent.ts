import { z } from '@hono/zod-openapi'
import { signatureHeaders } from '../lib/service-signature'
import { readErrorText, readJson } from './counterpart-body'
import { jsonErrorField, quotableText } from './counterpart-text'
import { fetchOutbound } from './fetch-outbound'

/** A node's agent: its base URL and the shared secret that signs every call. */
export interface NodeAgent {
  agentUrl: string
  agentSecret: string
}

/** The agent could not be reached, refused the call, or answered something unexpected. */
export class NodeAgentError extends Error {
  constructor(
    readonly status: number | null,
    message: string,
  ) {
    super(message)
  }
}

/**
 * POSTs a JSON body to the agent, signed with `x-service-timestamp` and `x-service-signature`
 * (`sha256=` HMAC-SHA256 of `<timestamp>.<raw body>` under the node's agent secret), and parses the answer.
 * A refusal quotes the agent's words only when they hold none of `withheld` (secrets the body carries).
 */
async function signedPost<T>(
  agent: NodeAgent,
  path: `/${string}`,
  body: unknown,
  schema: z.ZodType<T>,
  timeoutMs: number,
  withheld: readonly string[],
): Promise<T> {
  const raw = JSON.stringify(body)
  const url = `${agent.agentUrl.replace(/\/+$/, '')}${path}`
  const answer = await fetchOutbound(
    url,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(await signatureHeaders(agent.agentSecret, raw)) },
      body: raw,
    },
    timeoutMs,
  )
  if (!answer.answered) {
    throw new NodeAgentError(null, `the node agent at ${agent.agentUrl} did not answer: ${answer.reason}`)
  }
  const { response } = answer
  if (!response.ok) {
    const text = await readErrorText(response)
    const quoted = quotableText(jsonErrorField(text) ?? text, [...withheld, agent.agentSecret])
    throw new NodeAgentError(
      response.status,
      quoted
        ? `the node agent answered ${response.status}: ${quoted}`
        : `the node agent answered ${response.status}`,
    )
  }
  const json = await readJson(response)
  if (json === undefined) {
    throw new NodeAgentError(response.status, `the node agent answered ${path} with a body that is not JSON`)
  }
  const parsed = schema.safeParse(json)
  if (!parsed.success)
    throw new NodeAgentError(response.status, `the node agent answered ${path} unexpectedly`)
  return parsed.data
}

const PowerDnsInstalledSchema = z.object({
  apiUrl: z.url({ protocol: /^https?$/ }),
  serverId: z.string().min(1),
  version: z.string(),
})
export type PowerDnsInstalled = z.infer<typeof PowerDnsInstalledSchema>

// Installing packages takes a while; the agent answers only when PowerDNS answers its API.
const INSTALL_TIMEOUT_MS = 120_000

/**
 * Asks the agent to install (or reconfigure) PowerDNS Authoritative with the given API key and to report
 * where its HTTP API answers: `POST /v1/powerdns/install {apiKey}` → `{apiUrl, serverId, version}`.
 */
export function installPowerDns(agent: NodeAgent, apiKey: string): Promise<PowerDnsInstalled> {
  return signedPost(agent, '/v1/powerdns/install', { apiKey }, PowerDnsInstalledSchema, INSTALL_TIMEOUT_MS, [
    apiKey,
  ])
}
