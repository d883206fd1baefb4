import { type Role, rolePermissions } from '../auth/permissions'
import type { Principal } from '../auth/principal'
import { forbidden } from '../rpc/errors'

/**
 * Refuses (403) unless the principal holds every permission of `role`: nobody creates, promotes, takes over
 * or removes a user above their own reach (a token scoped to users:manage is not an admin).
 */
export function assertHoldsRole(principal: Principal, role: Role, doing: string): void {
  const lacking = [...rolePermissions(role)].filter((p) => !principal.permissions.has(p))
  if (lacking.length > 0) {
    throw forbidden(
      `${doing} needs every permission of the ${role} role; this principal lacks ${lacking.join(', ')}`,
    )
  }
}
