import { formatTime } from '../../components/time-stamp'

/** A timestamp in the panel's one format. */
export function when(iso: string): string {
  return formatTime(iso)
}

/** Basis points (10000 = 100 %) as a percentage with up to two decimals. */
export function percent(basisPoints: number): string {
  return `${(basisPoints / 100).toFixed(basisPoints % 100 === 0 ? 0 : 2)} %`
}
