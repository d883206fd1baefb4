/** A time for people, in their locale; a dash for none. */
export function when(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : '—'
}
