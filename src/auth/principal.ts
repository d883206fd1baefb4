import type { Permission, Role } from './permissions'

/** Who is calling. Every kind carries its effective permissions, computed fresh for each request. */
export type Principal =
  | { kind: 'anonymous'; permissions: ReadonlySet<Permission> }
  | {
      kind: 'session'
      userId: string
      email: string
      role: Role
      sessionIdHash: string
      permissions: ReadonlySet<Permission>
    }
  | {
      kind: 'token'
      tokenId: string
      /** The tokens that minted this one, root first; a token it mints records these plus this one. */
      ancestorIds: readonly string[]
      userId: string
      email: string
      role: Role
      permissions: ReadonlySet<Permission>
    }
  | {
      kind: 'site-token'
      tokenId: string
      userId: string
      siteId: string
      permissions: ReadonlySet<Permission>
    }

export const ANONYMOUS: Principal = { kind: 'anonymous', permissions: new Set() }

/** The principal's identity as written to the audit log. */
export function principalRef(principal: Principal): { kind: Principal['kind']; id: string | null } {
  switch (principal.kind) {
    case 'anonymous':
      return { kind: 'anonymous', id: null }
    case 'session':
      return { kind: 'session', id: principal.userId }
    case 'token':
    case 'site-token':
      return { kind: principal.kind, id: principal.tokenId }
  }
}
