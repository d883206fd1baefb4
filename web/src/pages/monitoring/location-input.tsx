import { FieldError } from '../../components/form-problem'
import { useNodeNames } from './locations'

/**
 * Where a probe's checks run: the edge and any of the fleet's nodes (up to 5 in all). A stored node the list does
 * not hold (past the first 500) is still shown, by id.
 */
export function LocationInput({
  value,
  onChange,
  error,
}: {
  value: readonly string[]
  onChange: (locations: string[]) => void
  error: unknown
}) {
  const names = useNodeNames()
  const toggle = (key: string, on: boolean) =>
    onChange(on ? [...value.filter((v) => v !== key), key] : value.filter((v) => v !== key))
  const listed = ['edge', ...names.keys()]
  const keys = [...listed, ...value.filter((key) => !listed.includes(key))]
  return (
    <fieldset className="config" aria-describedby="location-hint">
      <legend>Checked from</legend>
      {keys.map((key) => (
        <label className="check" key={key}>
          <input
            type="checkbox"
            checked={value.includes(key)}
            onChange={(e) => toggle(key, e.target.checked)}
          />
          {key === 'edge' ? 'Edge (the panel)' : `Node ${names.get(key) ?? key}`}
        </label>
      ))}
      <span className="hint" id="location-hint">
        Up to 5 places. A node's agent runs the check on the node, reaching ports and names only the node
        sees. With several places the probe is degraded while some fail and down when all do.
      </span>
      <FieldError error={error} field="location" />
    </fieldset>
  )
}
