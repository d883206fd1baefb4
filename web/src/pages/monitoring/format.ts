import { formatTime } from '../../components/time-stamp'

/** A timestamp in the panel's one format. */
export function when(iso: string): string {
  return formatTime(iso)
}

/** Basis points (10000 = 100 %) as a percentage with up to two decimals. */
export function percent(basisPoints: number): string {
  return `${(basisPoints / 100).toFixed(basisPoints % 100 === 0 ? 0 : 2)} %`
}

/** Seconds in its largest unit and the next, when not zero: `45 s`, `12 min 5 s`, `1 h`, `2 d 4 h`. */
export function duration(seconds: number): string {
  const units = [
    [86_400, 'd'],
    [3600, 'h'],
    [60, 'min'],
    [1, 's'],
  ] as const
  const first = units.findIndex(([size]) => seconds >= size)
  const [size, unit] = units[first] ?? [1, 's']
  const count = Math.floor(seconds / size)
  const [nextSize, nextUnit] = units[first + 1] ?? [1, '']
  const next = Math.floor((seconds - count * size) / nextSize)
  return next > 0 && nextUnit ? `${count} ${unit} ${next} ${nextUnit}` : `${count} ${unit}`
}
