import { FieldError } from '../../components/form-problem'
import { type FieldValues, fieldsFor } from './config-fields'
import type { ProbeType } from './probe-types'

/** The documented `config` keys of `type` as inputs, each with its hint and the panel's message for it. */
export function ConfigInputs({
  type,
  values,
  onChange,
  error,
}: {
  type: ProbeType
  values: FieldValues
  onChange: (values: FieldValues) => void
  error: unknown
}) {
  const set = (key: string, value: string | boolean) => onChange({ ...values, [key]: value })
  return (
    <fieldset className="config">
      <legend>Check settings ({type})</legend>
      <p className="note">Leave a field empty for its default.</p>
      {fieldsFor(type).map((field) => {
        const id = `config-${field.key}`
        const value = values[field.key]
        const path = `config.${field.key}`
        const hint = (
          <span className="hint" id={`${id}-hint`}>
            {field.hint(type)}
          </span>
        )
        if (field.input === 'checkbox')
          return (
            <label key={field.key} className="check">
              <input
                type="checkbox"
                checked={value === true}
                onChange={(e) => set(field.key, e.target.checked)}
                aria-describedby={`${id}-hint`}
              />
              {field.label}
              {hint}
              <FieldError error={error} field={path} />
            </label>
          )
        const text = typeof value === 'string' ? value : ''
        return (
          <label key={field.key} htmlFor={id}>
            {field.label}
            {field.input === 'select' ? (
              <select
                value={text}
                onChange={(e) => set(field.key, e.target.value)}
                aria-describedby={`${id}-hint`}
              >
                <option value="">default</option>
                {(field.options ?? []).map((option) => (
                  <option key={option}>{option}</option>
                ))}
              </select>
            ) : field.input === 'lines' ? (
              <textarea
                id={id}
                rows={3}
                value={text}
                onChange={(e) => set(field.key, e.target.value)}
                aria-describedby={`${id}-hint`}
              />
            ) : (
              <input
                id={id}
                type={field.input === 'number' ? 'number' : 'text'}
                value={text}
                onChange={(e) => set(field.key, e.target.value)}
                aria-describedby={`${id}-hint`}
                list={field.suggestions ? `${id}-suggestions` : undefined}
              />
            )}
            {field.suggestions && (
              <datalist id={`${id}-suggestions`}>
                {field.suggestions().map((suggestion) => (
                  <option key={suggestion} value={suggestion} />
                ))}
              </datalist>
            )}
            {hint}
            <FieldError error={error} field={path} />
            {field.key === 'expectedStatus.max' && <FieldError error={error} field="config.expectedStatus" />}
          </label>
        )
      })}
    </fieldset>
  )
}
