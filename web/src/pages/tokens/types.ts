import type { api } from '../../api'

export type TokenRow = Awaited<ReturnType<typeof api.tokens.list>>[number]
export type NewToken = Awaited<ReturnType<typeof api.tokens.create>>
export type TokenInput = Parameters<typeof api.tokens.create>[0]
export type TokenPermission = TokenInput['permissions'][number]

/** Where a token stands now: revoked, expired or active. */
export function tokenState(token: TokenRow, now: number = Date.now()): string {
  if (token.revokedAt) return 'revoked'
  if (token.expiresAt && Date.parse(token.expiresAt) <= now) return 'expired'
  return 'active'
}
