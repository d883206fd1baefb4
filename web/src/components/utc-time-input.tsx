import type { ReactNode } from 'react'

/** What the field takes: `2027-01-31 18:00`, read as UTC like every time the panel shows. */
const UTC_PATTERN = String.raw`\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}`

/**
 * A typed `YYYY-MM-DD HH:MM` in UTC as an ISO instant; empty stays undefined, and a value the browser let through
 * that names no moment is passed on unchanged, so the panel refuses it naming the field.
 */
export function utcInstant(value: string): string | undefined {
  const trimmed = value.trim()
  if (trimmed === '') return undefined
  const date = new Date(`${trimmed.replace(' ', 'T')}:00Z`)
  return Number.isNaN(date.getTime()) ? trimmed : date.toISOString()
}

/**
 * A moment entered in UTC, the panel's one zone: a text field with the format in its label and placeholder, instead
 * of `datetime-local`, which shows and reads the browser's zone in its locale's format. `children` go under the
 * input (its field error).
 */
export function UtcTimeInput({
  name,
  label,
  children,
}: {
  name: string
  label: string
  children?: ReactNode
}) {
  return (
    <label>
      {label} <span className="hint">(UTC, YYYY-MM-DD HH:MM)</span>
      <input
        name={name}
        inputMode="numeric"
        pattern={UTC_PATTERN}
        placeholder="2027-01-31 18:00"
        title="A UTC time as YYYY-MM-DD HH:MM"
        autoComplete="off"
      />
      {children}
    </label>
  )
}
