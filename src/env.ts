import type { HeartbeatLedger } from '../durable-objects/heartbeat-ledger'
import type { ProbeMonitor } from '../durable-objects/probe-monitor'
import type { ProviderPacer } from '../durable-objects/provider-pacer'
import type { RateLimiter } from '../durable-objects/rate-limiter'
import type { WatchHub } from '../durable-objects/watch-hub'
import type { Principal } from './auth/principal'
import type { QueueMessage } from './jobs/messages'
import type { SecretKeys } from './lib/secrets'

/** Every binding and var the Worker sees. */
export interface Env extends SecretKeys {
  DB: D1Database
  JOBS: Queue<QueueMessage>
  RATE_LIMITER: DurableObjectNamespace<RateLimiter>
  /** One per DNS account (`account:<id>`), pacing custom hostname writes to the provider's API limit. */
  PROVIDER_PACER: DurableObjectNamespace<ProviderPacer>
  /** One per probe, named by the probe id: its live state, heartbeat pings and alarms. */
  PROBE_MONITOR: DurableObjectNamespace<ProbeMonitor>
  /** 16 shards (`shard-<n>`) recording the plain pings of up heartbeats: see src/probes/heartbeat/ledger-api.ts. */
  HEARTBEAT_LEDGER: DurableObjectNamespace<HeartbeatLedger>
  /** One hub (named `probes`) fanning watch frames out to the open streams. */
  WATCH_HUB: DurableObjectNamespace<WatchHub>
  /** The built web interface (web/dist): the not-found path serves it for every non-API GET and HEAD. */
  ASSETS: Fetcher
  /** Probe and operational alert emails. */
  ALERT_EMAIL: SendEmail
  /** The From address of probe and operational alert emails. */
  ALERT_EMAIL_FROM: string
  IMAGE_TAG: string
  /** DNS-over-HTTPS JSON resolver for delegation, DS and glue checks (`GET <url>?name=..&type=..`). */
  DOH_RESOLVER_URL: string
  /** `development` allows loopback and private outbound targets; any other value, or none, means production. */
  ENVIRONMENT?: string
  /** Most custom hostnames one site may hold, whatever their state (default 100000). */
  CUSTOM_HOSTNAMES_PER_SITE?: string
  /** Most hostnames (custom hostnames and domains) the sites of one node may hold (default and ceiling 100000). */
  CUSTOM_HOSTNAMES_PER_NODE?: string
  /**
   * A DNS provider API limit other than the published one (a raised Cloudflare Enterprise or DigitalOcean limit):
   * `provider_a=2400/300,provider_b=10000/3600`, requests per seconds, per account; see
   * src/outside/dns-providers/rate-limits.ts.
   */
  DNS_PROVIDER_RATE_LIMITS?: string
  /**
   * The request header in which the proxy in front of the panel (not Cloudflare's edge) puts the client's address,
   * e.g. `X-Real-IP`: sign-in budgets are then per address. Unset, only Cloudflare's edge tells clients apart.
   */
  TRUSTED_CLIENT_IP_HEADER?: string
  /**
   * Set only by `npm run bench:scale` (`wrangler dev --var PROBE_CHECK_BENCH:log|monitor`, never in
   * wrangler.toml), and obeyed only in development: `log` logs the checks a pack would run instead of running
   * them; `monitor` hands each monitor a made-up `up` result instead of checking, then logs (test/bench/).
   */
  PROBE_CHECK_BENCH?: string
  /** The panel's own origin for the cookie Origin check; defaults to the request URL's origin. */
  PANEL_ORIGIN?: string
  BOOTSTRAP_ADMIN_EMAIL?: string
  BOOTSTRAP_ADMIN_PASSWORD?: string
}

export interface AppEnv {
  Bindings: Env
  Variables: {
    requestId: string
    principal: Principal
    /** The call's D1 session (see src/db/session.ts; `callDb` gives drizzle over it). */
    d1: D1DatabaseSession
    /** The newest bookmark the caller sent (header or cookie), if any. */
    bookmark: string | null
  }
}
