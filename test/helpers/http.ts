import { SELF } from 'cloudflare:test'
import { assertContract, readAnswer } from './contract'

export const ORIGIN = 'https://panel.test'

export interface Caller {
  token?: string
  cookie?: string
  origin?: string | null
}

export interface CallResult<T = unknown> {
  status: number
  headers: Headers
  body: T
  text: string
}

/** Sends a raw request to the Worker under test and checks the exchange against the OpenAPI document. */
export async function send(path: string, init: RequestInit = {}): Promise<CallResult> {
  const request = new Request(`${ORIGIN}${path}`, init)
  const response = await SELF.fetch(request)
  const text = await readAnswer(response)
  await assertContract({
    method: request.method,
    url: request.url,
    requestHeaders: request.headers,
    requestBody: typeof init.body === 'string' ? init.body : undefined,
    status: response.status,
    responseHeaders: response.headers,
    responseText: text,
  })
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {}
  return { status: response.status, headers: response.headers, body, text }
}

function headersFor(caller: Caller): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (caller.token) headers.authorization = `Bearer ${caller.token}`
  if (caller.cookie) headers.cookie = caller.cookie
  const origin = caller.origin === undefined ? (caller.cookie ? ORIGIN : undefined) : caller.origin
  if (origin) headers.origin = origin
  return headers
}

/** Calls a procedure over RPC (`/api/rpc/<name>`) or its REST fallback (`/api/v1/<dotted/path>`). */
export function call<T = Record<string, unknown>>(
  name: string,
  input: unknown = {},
  caller: Caller = {},
  transport: 'rpc' | 'rest' = 'rpc',
): Promise<CallResult<T>> {
  const path = transport === 'rpc' ? `/api/rpc/${name}` : `/api/v1/${name.replaceAll('.', '/')}`
  return send(path, { method: 'POST', headers: headersFor(caller), body: JSON.stringify(input) }) as Promise<
    CallResult<T>
  >
}

/** Calls a procedure and fails the test with the problem body unless it answers 200. */
export async function ok<T = Record<string, unknown>>(
  name: string,
  input: unknown,
  caller: Caller,
): Promise<T> {
  const result = await call<T>(name, input, caller)
  if (result.status !== 200) throw new Error(`${name} answered ${result.status}: ${result.text}`)
  return result.body
}
