import { GET_PROCEDURES } from './get-procedures.ts'
import { PanelError, type ProblemDetails } from './panel-error.ts'
import { PROCEDURE_NAME } from './procedure-name.ts'
import { readFrames } from './stream-frames.ts'
import { STREAM_PROCEDURES } from './stream-procedures.ts'
import type { FetchLike, FetchResponse, StreamOptions } from './types.ts'

export interface ClientOptions {
  /** The panel's address, for example `https://panel.example.com`. */
  baseUrl: string
  /** An API token (`pat_…`) or site-bound token (`spat_…`); without one, a same-origin browser sends its session cookie. */
  token?: string | undefined
  /**
   * Headers sent on every call (an `Origin`, a tracing header); the client's content type and token take precedence.
   * An `x-d1-bookmark` here is where the first call starts from; once the panel answered one, the client sends its own.
   */
  headers?: Readonly<Record<string, string>> | undefined
  fetch?: FetchLike | undefined
}

function requestHeaders(options: ClientOptions): Record<string, string> {
  const own: Record<string, string> = { 'content-type': 'application/json' }
  if (options.token) own.authorization = `Bearer ${options.token}`
  const extra = Object.entries(options.headers ?? {})
    .map(([name, value]) => [name.toLowerCase(), value] as const)
    .filter(([name]) => !(name in own))
  return { ...Object.fromEntries(extra), ...own }
}

/** The panel's D1 bookmark header: what it read or wrote, and where the next read must start from. */
const BOOKMARK_HEADER = 'x-d1-bookmark'

/**
 * Remembers the newest bookmark the panel answered and sends it on every later call, so each call reads at least
 * what the earlier ones wrote or saw, even from a replica. Bookmarks are fixed-width hex: the later one sorts last.
 */
function bookmarkKeeper() {
  let newest: string | null = null
  return {
    headers: (headers: Record<string, string>): Record<string, string> =>
      newest === null ? headers : { ...headers, [BOOKMARK_HEADER]: newest },
    remember(response: FetchResponse): void {
      const seen = response.headers.get(BOOKMARK_HEADER)
      if (seen && (newest === null || seen > newest)) newest = seen
    },
  }
}

function isProblem(body: unknown): body is ProblemDetails {
  if (typeof body !== 'object' || body === null) return false
  const { code, detail } = body as Record<string, unknown>
  return typeof code === 'string' && typeof detail === 'string'
}

async function readProblem(response: FetchResponse): Promise<ProblemDetails> {
  const text = await response.text()
  try {
    const body: unknown = JSON.parse(text)
    if (isProblem(body)) return body
  } catch {}
  return {
    type: 'about:blank',
    title: response.statusText,
    status: response.status,
    detail: text,
    code: 'unknown',
    requestId: response.headers.get('x-request-id') ?? '',
  }
}

/**
 * The untyped proxy behind `createClient`: `client.a.b(input)` posts `input` to `/api/rpc/a.b`; a stream
 * procedure gives an async iterator of its events' data instead of a promise, and a GET-only one (the public
 * feed and version) is fetched from its GET route.
 */
export function rpcClient(options: ClientOptions): unknown {
  const doFetch: FetchLike = options.fetch ?? ((input, init) => fetch(input, init))
  const base = options.baseUrl.replace(/\/+$/, '')
  const bookmark = bookmarkKeeper()
  const read = async (name: string, response: FetchResponse) => {
    bookmark.remember(response)
    if (!response.ok) throw new PanelError(name, response.status, await readProblem(response))
    return JSON.parse(await response.text())
  }
  const call = async (name: string, input: unknown) => {
    const response = await doFetch(`${base}/api/rpc/${name}`, {
      method: 'POST',
      headers: bookmark.headers(requestHeaders(options)),
      body: JSON.stringify(input ?? {}),
    })
    return read(name, response)
  }
  // A GET-only procedure takes no input; without a body it sends no content type (a browser sends no preflight).
  const get = async (name: string, path: string) => {
    const { 'content-type': _, ...headers } = requestHeaders(options)
    return read(name, await doFetch(`${base}${path}`, { method: 'GET', headers: bookmark.headers(headers) }))
  }
  const stream = async function* (
    name: string,
    input: unknown,
    { signal, lastEventId, onEventId }: StreamOptions = {},
  ) {
    const headers = bookmark.headers({ ...requestHeaders(options), accept: 'text/event-stream' })
    if (lastEventId !== undefined) Object.assign(headers, { 'last-event-id': lastEventId })
    const init = { method: 'POST' as const, headers, body: JSON.stringify(input ?? {}) }
    let response: FetchResponse
    try {
      response = await doFetch(`${base}/api/rpc/${name}`, signal ? { ...init, signal } : init)
    } catch (error) {
      if (signal?.aborted) return
      throw error
    }
    bookmark.remember(response)
    if (!response.ok) throw new PanelError(name, response.status, await readProblem(response))
    yield* readFrames(name, response, signal, onEventId)
  }
  const proxy = (path: string[]): unknown =>
    new Proxy(() => undefined, {
      get: (_target, key) => {
        if (key === PROCEDURE_NAME) return path.join('.')
        return typeof key === 'string' && key !== 'then' ? proxy([...path, key]) : undefined
      },
      apply: (_target, _this, args: unknown[]) => {
        const name = path.join('.')
        const getPath = GET_PROCEDURES.get(name)
        if (getPath !== undefined) return get(name, getPath)
        return STREAM_PROCEDURES.has(name)
          ? stream(name, args[0], args[1] as StreamOptions)
          : call(name, args[0])
      },
    })
  return proxy([])
}
