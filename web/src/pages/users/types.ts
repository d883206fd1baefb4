import type { api } from '../../api'

export type UserRow = Awaited<ReturnType<typeof api.users.list>>[number]
export type Role = UserRow['role']
export type NewUser = Parameters<typeof api.users.create>[0]
export type UserChange = Parameters<typeof api.users.update>[0]

/** Every role with what it means; a Record, so a role the API adds fails the typecheck until it is described. */
export const ROLES: Record<Role, string> = {
  admin: 'admin: every permission',
  operator: 'operator: read-only (every view permission)',
}

export const roleNames = Object.keys(ROLES) as Role[]

/** The role a `<select>` value names, if any. */
export function roleOf(value: string): Role | undefined {
  return roleNames.find((name) => name === value)
}
