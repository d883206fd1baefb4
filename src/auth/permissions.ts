/** Every permission the panel knows: the spec's table plus the ones for surfaces the spec does not show. */
export const PERMISSIONS = [
  'domains:view',
  'domains:manage',
  'routes:manage',
  'settings:view',
  'settings:edit',
  'custom-hostnames:view',
  'custom-hostnames:manage',
  'probes:view',
  'probes:manage',
  'fleet:view',
  'fleet:manage',
  'users:manage',
  'tokens:manage',
  'audit:view',
  'changelog:manage',
] as const

export type Permission = (typeof PERMISSIONS)[number]
export type Role = 'admin' | 'operator'

const ALL: ReadonlySet<Permission> = new Set(PERMISSIONS)
const VIEW: ReadonlySet<Permission> = new Set(PERMISSIONS.filter((p) => p.endsWith(':view')))

/** Operators hold every `:view` permission; admins hold all. */
export function rolePermissions(role: Role): ReadonlySet<Permission> {
  return role === 'admin' ? ALL : VIEW
}

export function isPermission(name: string): name is Permission {
  return ALL.has(name as Permission)
}
