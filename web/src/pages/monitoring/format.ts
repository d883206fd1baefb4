/** A timestamp in the reader's locale. */
export function when(iso: string): string {
  return new Date(iso).toLocaleString()
}

/** Basis points (10000 = 100 %) as a percentage with up to two decimals. */
export function percent(basisPoints: number): string {
  return `${(basisPoints / 100).toFixed(basisPoints % 100 === 0 ? 0 : 2)} %`
}
