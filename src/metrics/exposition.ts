// The two text formats /metrics speaks: OpenMetrics 1.0 (what Prometheus asks for first) and the older
// Prometheus text format 0.0.4 (for a client that accepts only text/plain). They differ in little: OpenMetrics
// has `# UNIT`, the stateset type, `_created` samples and the closing `# EOF`; the text format calls a stateset
// a gauge and has none of the rest.

export type Format = 'openmetrics' | 'text'

export const CONTENT_TYPES: Record<Format, string> = {
  openmetrics: 'application/openmetrics-text; version=1.0.0; charset=utf-8',
  text: 'text/plain; version=0.0.4; charset=utf-8',
}

export type Labels = Record<string, string>

export interface Sample {
  /** Appended to the family name (`_bucket`, `_count`, `_sum`, `_created`); none for a plain gauge. */
  suffix?: string
  labels: Labels
  value: number
}

export interface Family {
  /** Follows Prometheus' naming: snake_case, the unit (in base units) as the last word. */
  name: string
  type: 'gauge' | 'stateset' | 'histogram'
  /** The unit the name ends in; OpenMetrics states it in `# UNIT`. */
  unit?: 'seconds'
  help: string
  samples: Sample[]
}

/** OpenMetrics picks itself unless the Accept header names only text/plain (an older scraper). */
export function negotiate(accept: string | undefined): Format {
  const types = (accept ?? '')
    .split(',')
    .map((part) => part.split(';')[0]?.trim().toLowerCase() ?? '')
    .filter((type) => type !== '')
  if (types.includes('application/openmetrics-text')) return 'openmetrics'
  return types.length > 0 && types.every((type) => type === 'text/plain') ? 'text' : 'openmetrics'
}

const escapeLabel = (value: string) => value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')

// The text format's HELP escapes only backslash and newline; OpenMetrics' also the double quote.
function escapeHelp(help: string, format: Format): string {
  const escaped = help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')
  return format === 'openmetrics' ? escaped.replace(/"/g, '\\"') : escaped
}

function number(value: number): string {
  if (Number.isNaN(value)) return 'NaN'
  if (value === Number.POSITIVE_INFINITY) return '+Inf'
  if (value === Number.NEGATIVE_INFINITY) return '-Inf'
  return String(value)
}

function sampleLine(name: string, sample: Sample): string {
  const labels = Object.entries(sample.labels)
  const set = labels.length === 0 ? '' : `{${labels.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',')}}`
  return `${name}${sample.suffix ?? ''}${set} ${number(sample.value)}`
}

/** The exposition of the families, in order, in `format`. */
export function render(families: readonly Family[], format: Format): string {
  const lines: string[] = []
  for (const family of families) {
    const type = format === 'text' && family.type === 'stateset' ? 'gauge' : family.type
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help, format)}`, `# TYPE ${family.name} ${type}`)
    if (format === 'openmetrics' && family.unit) lines.push(`# UNIT ${family.name} ${family.unit}`)
    for (const sample of family.samples) {
      if (format === 'text' && sample.suffix === '_created') continue
      lines.push(sampleLine(family.name, sample))
    }
  }
  if (format === 'openmetrics') lines.push('# EOF')
  return `${lines.join('\n')}\n`
}

/** A bucket bound as `le` spells it: always with a fraction (`1.0`), as Prometheus' own clients write it. */
export const le = (seconds: number) => (Number.isInteger(seconds) ? seconds.toFixed(1) : String(seconds))

/** A histogram's samples: cumulative buckets up to +Inf, count, sum and (OpenMetrics only) when it started. */
export function histogramSamples(
  labels: Labels,
  bounds: readonly number[],
  counts: readonly number[],
  total: { count: number; sum: number; createdSeconds: number },
): Sample[] {
  let running = 0
  const buckets = bounds.map((bound, i) => {
    running += counts[i] ?? 0
    return { suffix: '_bucket', labels: { ...labels, le: le(bound) }, value: running }
  })
  return [
    ...buckets,
    { suffix: '_bucket', labels: { ...labels, le: '+Inf' }, value: total.count },
    { suffix: '_count', labels, value: total.count },
    { suffix: '_sum', labels, value: total.sum },
    { suffix: '_created', labels, value: total.createdSeconds },
  ]
}
