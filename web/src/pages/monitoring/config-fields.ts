import type { ProbeType } from './probe-types'

/** One documented `config` key as a form input; `key` is the issue path below `config` (`expectedStatus.min`). */
export interface ConfigField {
  key: string
  label: string
  input: 'number' | 'text' | 'select' | 'checkbox' | 'lines'
  types: readonly ProbeType[]
  options?: readonly string[]
  /** Values offered as the text input's suggestions (a datalist); any other value may still be typed. */
  suggestions?: () => readonly string[]
  hint: (type: ProbeType) => string
}

const CHECKED: readonly ProbeType[] = ['http', 'tcp', 'dns', 'cert']
const ALL: readonly ProbeType[] = ['http', 'tcp', 'dns', 'cert', 'heartbeat']

export const CONFIG_FIELDS: readonly ConfigField[] = [
  {
    key: 'intervalSeconds',
    label: 'Interval (seconds)',
    input: 'number',
    types: ALL,
    hint: (type) =>
      type === 'heartbeat'
        ? 'Pings are expected at least this often: 30 s to 1 year (default 86400); leave empty with a schedule'
        : `10..86400 between checks (default ${type === 'cert' ? 3600 : 60}); under 60 the probe's own alarm runs them`,
  },
  {
    key: 'graceSeconds',
    label: 'Grace (seconds)',
    input: 'number',
    types: ['heartbeat'],
    hint: () =>
      'How late a ping may be: down at last ping + interval + grace, or at the scheduled run + grace (default 3600)',
  },
  {
    key: 'schedule',
    label: 'Schedule (cron)',
    input: 'text',
    types: ['heartbeat'],
    hint: () =>
      'Instead of an interval: when the job runs, as minute hour day-of-month month day-of-week (0 3 * * * is 03:00 daily)',
  },
  {
    key: 'timezone',
    label: 'Time zone',
    input: 'text',
    types: ['heartbeat'],
    suggestions: () => Intl.supportedValuesOf('timeZone'),
    hint: () =>
      'The schedule runs in this IANA zone, daylight saving included (default UTC); only with a schedule',
  },
  {
    key: 'timeoutMs',
    label: 'Timeout (ms)',
    input: 'number',
    types: CHECKED,
    hint: () => '500..30000, the deadline of one check (default 10000)',
  },
  {
    key: 'method',
    label: 'Method',
    input: 'select',
    types: ['http'],
    options: ['GET', 'HEAD', 'POST'],
    hint: () => 'Default GET',
  },
  {
    key: 'expectedStatus.min',
    label: 'Expected status from',
    input: 'number',
    types: ['http'],
    hint: () => 'Inclusive (default 200)',
  },
  {
    key: 'expectedStatus.max',
    label: 'Expected status to',
    input: 'number',
    types: ['http'],
    hint: () => 'Inclusive (default 399)',
  },
  {
    key: 'keyword',
    label: 'Keyword',
    input: 'text',
    types: ['http'],
    hint: () => 'Text the first 64 KB of the body must contain (default none)',
  },
  {
    key: 'slowMs',
    label: 'Slow after (ms)',
    input: 'number',
    types: ['http'],
    hint: () => 'A slower answer is degraded (default never)',
  },
  {
    key: 'followRedirects',
    label: 'Follow redirects',
    input: 'checkbox',
    types: ['http'],
    hint: () => 'Up to 5, each hop under the outbound rule (default off)',
  },
  {
    key: 'recordType',
    label: 'Record type',
    input: 'select',
    types: ['dns'],
    options: ['A', 'AAAA', 'CNAME', 'TXT', 'MX', 'NS'],
    hint: () => 'Default A',
  },
  {
    key: 'expectedValues',
    label: 'Expected values (one a line)',
    input: 'lines',
    types: ['dns'],
    hint: () => 'All present: up, some: degraded, none: down; empty accepts any answer',
  },
  {
    key: 'certWarnDays',
    label: 'Warn days before expiry',
    input: 'number',
    types: ['cert'],
    hint: () => 'Expiring within this many days is degraded (default 14)',
  },
  {
    key: 'failureThreshold',
    label: 'Failures before down',
    input: 'number',
    types: ALL,
    hint: (type) => `Consecutive failures (default ${type === 'heartbeat' ? 1 : 3})`,
  },
  {
    key: 'recoveryThreshold',
    label: 'Good results before up',
    input: 'number',
    types: ALL,
    hint: () => 'Consecutive good results after down (default 1)',
  },
  {
    key: 'flapWindowSeconds',
    label: 'Flap window (seconds)',
    input: 'number',
    types: ALL,
    hint: () => 'The window in which state changes are counted (default 1800)',
  },
  {
    key: 'flapThreshold',
    label: 'Flap threshold',
    input: 'number',
    types: ALL,
    hint: () => 'More changes than this inside the window: flapping (default 5)',
  },
]

/** A form's raw values, by field key: strings from inputs, booleans from checkboxes. */
export type FieldValues = Record<string, string | boolean>

/** The inputs `type` shows. */
export function fieldsFor(type: ProbeType): ConfigField[] {
  return CONFIG_FIELDS.filter((field) => field.types.includes(type))
}

function typed(field: ConfigField, raw: string | boolean): unknown {
  if (typeof raw === 'boolean') return raw
  if (field.input === 'lines')
    return raw
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '')
  // Anything that is not a number goes as typed, so the panel names the field in its answer.
  if (field.input === 'number') return Number.isFinite(Number(raw)) ? Number(raw) : raw
  return raw
}

/**
 * The `config` to send. On create an empty input is left out (its default applies); on edit it is sent as null,
 * which sets the key back to its default. Keys with a dot become nested objects (`expectedStatus.min`).
 */
export function configPatch(
  type: ProbeType,
  values: FieldValues,
  mode: 'create' | 'edit',
): Record<string, unknown> {
  const patch: Record<string, unknown> = {}
  const nested: Record<string, Record<string, unknown>> = {}
  for (const field of fieldsFor(type)) {
    const raw = values[field.key] ?? ''
    const empty = raw === ''
    const [outer, inner] = field.key.split('.')
    if (!outer) continue
    if (inner) {
      if (!empty) nested[outer] = { ...nested[outer], [inner]: typed(field, raw) }
      else if (mode === 'edit' && !(outer in nested)) nested[outer] = {}
      continue
    }
    if (!empty) patch[outer] = typed(field, raw)
    else if (mode === 'edit') patch[outer] = null
  }
  // A range with both ends empty on edit goes back to its default; a half-filled one is sent for the panel to judge.
  for (const [outer, value] of Object.entries(nested))
    patch[outer] = Object.keys(value).length > 0 ? value : null
  return patch
}

/** The stored config as form values (the edit form starts from what is stored). */
export function valuesOf(config: object): FieldValues {
  const values: FieldValues = {}
  for (const [key, value] of Object.entries(config)) {
    if (typeof value === 'boolean') values[key] = value
    else if (Array.isArray(value)) values[key] = value.join('\n')
    else if (value !== null && typeof value === 'object')
      for (const [inner, innerValue] of Object.entries(value)) values[`${key}.${inner}`] = String(innerValue)
    else if (value !== undefined && value !== null) values[key] = String(value)
  }
  return values
}
