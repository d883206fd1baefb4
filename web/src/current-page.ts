// Which navigation entry stands for the page being shown, so every page (a site, a release, a nameserver list)
// marks where it lives, not only the pages the navigation links to.

/** Pages whose first path segment is not their area's: a site belongs to the fleet. */
const AREA_OF_SEGMENT: Readonly<Record<string, string>> = { sites: 'fleet' }

const segmentsOf = (path: string) => path.split('/').filter(Boolean)

function areaOf(path: string): string {
  const first = segmentsOf(path)[0] ?? ''
  return AREA_OF_SEGMENT[first] ?? first
}

/** The main navigation's entry for `location`: the one in the same area (first path segment). */
export function currentArea(entries: readonly string[], location: string): string | undefined {
  return entries.find((entry) => areaOf(entry) === areaOf(location))
}

/** An area's tab for `location`: the longest tab path that `location` equals or lies below. */
export function currentTab(entries: readonly string[], location: string): string | undefined {
  const here = segmentsOf(location)
  return entries
    .filter((entry) => segmentsOf(entry).every((segment, index) => here[index] === segment))
    .sort((a, b) => segmentsOf(b).length - segmentsOf(a).length)[0]
}
