import { FieldError } from '../../components/form-problem'

/** One group as the form holds it: a key for React, its name and the probes ticked, in the order ticked. */
export interface GroupDraft {
  key: number
  name: string
  probes: { probeId: string; displayName: string }[]
}

let nextKey = 0
/** A fresh group for the form (its key unique in the page). */
export const newGroup = (name = ''): GroupDraft => ({ key: ++nextKey, name, probes: [] })

interface ProbeOption {
  id: string
  name: string
}

function GroupFields({
  group,
  index,
  sent,
  count,
  probes,
  error,
  onChange,
  onRemove,
}: {
  group: GroupDraft
  index: number
  /** Its place among the groups sent (those with a probe): where the panel's answer names it. */
  sent: number
  count: number
  probes: readonly ProbeOption[]
  error: unknown
  onChange: (group: GroupDraft) => void
  onRemove: () => void
}) {
  const shown = new Map(group.probes.map((probe) => [probe.probeId, probe.displayName]))
  const tick = (probe: ProbeOption, on: boolean) =>
    onChange({
      ...group,
      probes: on
        ? [...group.probes, { probeId: probe.id, displayName: probe.name }]
        : group.probes.filter((listed) => listed.probeId !== probe.id),
    })
  const rename = (probeId: string, displayName: string) =>
    onChange({
      ...group,
      probes: group.probes.map((listed) => (listed.probeId === probeId ? { probeId, displayName } : listed)),
    })
  const title = group.name.trim() || `Group ${index + 1}`
  return (
    <fieldset data-testid="status-page-group">
      <legend>{title}</legend>
      <label>
        Group name
        <input value={group.name} onChange={(e) => onChange({ ...group, name: e.target.value })} required />
        <FieldError error={error} field={`groups.${sent}.name`} />
      </label>
      <p className="hint">
        Probes shown in this group, each under the name the public sees. A group with none ticked is left out.
      </p>
      {probes.length === 0 && <p>No probes yet.</p>}
      {probes.map((probe) => (
        <div key={probe.id} className="actions">
          <label className="check">
            <input
              type="checkbox"
              checked={shown.has(probe.id)}
              onChange={(e) => tick(probe, e.target.checked)}
            />
            {probe.name}
          </label>
          {shown.has(probe.id) && (
            <input
              aria-label={`Public name of ${probe.name} in ${title}`}
              value={shown.get(probe.id)}
              onChange={(e) => rename(probe.id, e.target.value)}
              required
            />
          )}
        </div>
      ))}
      {count > 1 && (
        <div className="actions">
          <button type="button" className="secondary" onClick={onRemove}>
            Remove group {title}
          </button>
        </div>
      )}
    </fieldset>
  )
}

/** The groups the panel is sent: those with a probe ticked. */
export const sentGroups = (groups: readonly GroupDraft[]) => groups.filter((group) => group.probes.length > 0)

/** The page's groups, in order: each a name and the probes it shows; groups are added and removed here. */
export function GroupsEditor({
  groups,
  probes,
  error,
  onChange,
}: {
  groups: readonly GroupDraft[]
  probes: readonly ProbeOption[]
  error: unknown
  onChange: (groups: GroupDraft[]) => void
}) {
  return (
    <>
      {groups.map((group, index) => (
        <GroupFields
          key={group.key}
          group={group}
          index={index}
          sent={sentGroups(groups).indexOf(group)}
          count={groups.length}
          probes={probes}
          error={error}
          onChange={(changed) => onChange(groups.map((each) => (each.key === group.key ? changed : each)))}
          onRemove={() => onChange(groups.filter((each) => each.key !== group.key))}
        />
      ))}
      <div className="actions">
        <button type="button" className="secondary" onClick={() => onChange([...groups, newGroup()])}>
          Add a group
        </button>
      </div>
    </>
  )
}
