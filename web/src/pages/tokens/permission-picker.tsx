import type { TokenPermission } from './types'

/** The permissions grouped by area (`fleet:view`, `fleet:manage` → fleet), areas in the order given, viewing first. */
function byArea(permissions: readonly TokenPermission[]): [string, TokenPermission[]][] {
  const areas = new Map<string, TokenPermission[]>()
  for (const permission of permissions) {
    const area = permission.split(':')[0] ?? permission
    areas.set(area, [...(areas.get(area) ?? []), permission])
  }
  const viewingFirst = (p: TokenPermission) => (p.endsWith(':view') ? 0 : 1)
  return [...areas].map(([area, held]) => [area, held.sort((a, b) => viewingFirst(a) - viewingFirst(b))])
}

/**
 * Checkboxes for the permissions a new token may carry (only those the signed-in principal holds), one row per
 * area: viewing on the left, changing on the right.
 */
export function PermissionPicker({
  offered,
  chosen,
  onChange,
}: {
  offered: readonly TokenPermission[]
  chosen: ReadonlySet<TokenPermission>
  onChange: (chosen: Set<TokenPermission>) => void
}) {
  const toggle = (permission: TokenPermission, on: boolean) => {
    const next = new Set(chosen)
    if (on) next.add(permission)
    else next.delete(permission)
    onChange(next)
  }
  return (
    <fieldset>
      <legend>Permissions (only those you hold are offered)</legend>
      <div className="actions">
        <button type="button" className="secondary" onClick={() => onChange(new Set(offered))}>
          Select all
        </button>
        <button type="button" className="secondary" onClick={() => onChange(new Set())}>
          Select none
        </button>
      </div>
      {byArea(offered).map(([area, permissions]) => (
        <div key={area} className="permission-area">
          {permissions.map((permission) => (
            <label key={permission} className={permission.endsWith(':view') ? 'check' : 'check changes'}>
              <input
                type="checkbox"
                checked={chosen.has(permission)}
                onChange={(event) => toggle(permission, event.target.checked)}
              />
              <code>{permission}</code>
            </label>
          ))}
        </div>
      ))}
    </fieldset>
  )
}
