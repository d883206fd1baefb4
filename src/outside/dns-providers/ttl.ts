import type { DnsProviderId } from './types'

interface TtlRule {
  min: number
  max: number
  /** A value the provider gives its own meaning below `min` (Cloudflare's 1, "automatic"). */
  special?: number
  /** The only values the provider stores; any other is rounded up to the next one. */
  steps?: readonly number[]
}

// RFC 2181: a TTL is an unsigned 31-bit number.
const RFC_MAX = 2_147_483_647

const RULES: Record<DnsProviderId, TtlRule> = {
  // 1 = automatic, otherwise 60–86400 (error 9021 outside it).
  provider_a: { min: 60, max: 86_400, special: 1 },
  // At least 30 seconds.
  provider_b: { min: 30, max: RFC_MAX },
  // At least 60 seconds.
  provider_c: { min: 60, max: RFC_MAX },
  // Vultr documents no bounds of its own.
  provider_d: { min: 1, max: RFC_MAX },
  // Linode keeps only these values and rounds any other.
  provider_e: {
    min: 30,
    max: 2_419_200,
    steps: [
      30, 120, 300, 3600, 7200, 14_400, 28_800, 57_600, 86_400, 172_800, 345_600, 604_800, 1_209_600,
      2_419_200,
    ],
  },
}

/** The TTL a provider will take for the one asked: clamped into its range, rounded up to a value it keeps. */
export function providerTtl(provider: DnsProviderId, ttl: number): number {
  const rule = RULES[provider]
  if (ttl === rule.special) return ttl
  const clamped = Math.min(Math.max(Math.round(ttl), rule.min), rule.max)
  return rule.steps?.find((step) => step >= clamped) ?? clamped
}
