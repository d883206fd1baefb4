import { randomSecret } from '../../lib/encoding'
import { sha256Hex } from '../../lib/hash'

// `hb_<probe id (a UUID)>_<43 base64url characters>`: the probe id addresses its monitor without any lookup, and
// only the secret's hash is stored (in D1 and in the monitor).
const TOKEN_PATTERN =
  /^hb_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})_([A-Za-z0-9_-]{43})$/

/** A new heartbeat token for a probe, and the hash to store. */
export async function mintHeartbeatToken(probeId: string): Promise<{ token: string; hash: string }> {
  const secret = randomSecret()
  return { token: `hb_${probeId}_${secret}`, hash: await sha256Hex(secret) }
}

/** The probe id and secret of a well-formed token; null for anything else. */
export function parseHeartbeatToken(token: string): { probeId: string; secret: string } | null {
  const match = TOKEN_PATTERN.exec(token)
  if (!match?.[1] || !match[2]) return null
  return { probeId: match[1], secret: match[2] }
}

/** What a token's secret is stored as. */
export function hashHeartbeatSecret(secret: string): Promise<string> {
  return sha256Hex(secret)
}
