import type { FakeHandler } from '../helpers/outbound'

/** A zone as a fake provider holds it. */
export interface FakeZone {
  id: string
  name: string
}

/** A record as the fake received it, in the provider's own wire form (relative names, trailing dots…). */
export interface FakeRecord {
  id: string
  zoneId: string
  type: string
  name: string
  content: string
  ttl: number
  proxied?: boolean
}

/** What every DNS provider fake offers a test, whatever API it speaks. */
export interface DnsFake {
  /** Where the fake is installed, e.g. `https://api.cloudflare.com`. */
  readonly origin: string
  /** The API root to give a driver (origin plus the provider's version path). */
  readonly apiBaseUrl: string
  /** The one token the fake accepts. */
  readonly token: string
  readonly zones: FakeZone[]
  readonly records: FakeRecord[]
  /** When set, every request is answered 429 with this Retry-After (seconds). */
  rateLimitRetryAfter: number | null
  /**
   * When set, the next record create is applied but its answer is lost: the request fails as a dropped
   * connection does. The flag then resets.
   */
  loseNextCreateAnswer: boolean
  addZone(name: string): FakeZone
  /** Puts a record (in the provider's wire form) in the zone as someone else would; the fake gives its id. */
  addRecord(zone: FakeZone, record: Omit<FakeRecord, 'id' | 'zoneId'>): FakeRecord
  handle: FakeHandler
}

export interface FakeOptions {
  origin?: string
  basePath?: string
  token?: string
  /** The largest page the fake hands out, whatever the client asks for, so pagination is exercised. */
  pageCap?: number
}

/** The answer to an applied record create, or a dropped connection when the fake was told to lose it. */
export function createAnswer(fake: DnsFake, answer: Response): Response {
  if (!fake.loseNextCreateAnswer) return answer
  fake.loseNextCreateAnswer = false
  throw new TypeError('network connection lost')
}

/** A JSON answer with the given status and headers. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  })
}

/** The path below the fake's API root, or null when the request is not for this API at all. */
export function apiPath(request: Request, basePath: string): string | null {
  const { pathname } = new URL(request.url)
  return pathname.startsWith(`${basePath}/`) ? pathname.slice(basePath.length) : null
}

/** A positive integer query parameter, or the fallback. */
export function intParam(url: URL, name: string, fallback: number): number {
  const value = Number(url.searchParams.get(name))
  return Number.isInteger(value) && value > 0 ? value : fallback
}

export function randomHex(bytes: number): string {
  return [...crypto.getRandomValues(new Uint8Array(bytes))]
    .map((b) => b.toString(16).padStart(2, '0'))
    .join('')
}
