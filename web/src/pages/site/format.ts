import { formatTime } from '../../components/time-stamp'

/** A timestamp in the panel's one format, or a dash when there is none. */
export function when(iso: string | null | undefined): string {
  return iso ? formatTime(iso) : '—'
}
