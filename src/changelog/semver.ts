// The grammar of semver.org 2.0.0: MAJOR.MINOR.PATCH, optional -prerelease and +build.
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/

interface Parsed {
  core: [bigint, bigint, bigint]
  prerelease: string[]
}

function parse(version: string): Parsed | null {
  const match = SEMVER.exec(version)
  if (!match) return null
  return {
    core: [BigInt(match[1] ?? 0), BigInt(match[2] ?? 0), BigInt(match[3] ?? 0)],
    prerelease: match[4] ? match[4].split('.') : [],
  }
}

/** True for a valid semver 2.0.0 version string (no leading `v`). */
export function isSemver(version: string): boolean {
  return SEMVER.test(version)
}

function compareIdentifiers(a: string, b: string): number {
  const aNumeric = /^\d+$/.test(a)
  const bNumeric = /^\d+$/.test(b)
  if (aNumeric && bNumeric) return BigInt(a) === BigInt(b) ? 0 : BigInt(a) < BigInt(b) ? -1 : 1
  if (aNumeric) return -1
  if (bNumeric) return 1
  return a === b ? 0 : a < b ? -1 : 1
}

/**
 * Semver precedence: negative when `a` is older than `b`, positive when newer, 0 when equal (build metadata is
 * ignored). Numbers compare as numbers, so 0.10.0 is newer than 0.9.0. Invalid versions sort as the oldest.
 */
export function compareSemver(a: string, b: string): number {
  const left = parse(a)
  const right = parse(b)
  if (!left || !right) return left ? 1 : right ? -1 : 0
  for (let i = 0; i < 3; i++) {
    const l = left.core[i] ?? 0n
    const r = right.core[i] ?? 0n
    if (l !== r) return l < r ? -1 : 1
  }
  // A pre-release is older than its release; between pre-releases, identifiers compare left to right.
  if (left.prerelease.length === 0 || right.prerelease.length === 0) {
    return Math.sign(right.prerelease.length - left.prerelease.length)
  }
  for (let i = 0; i < Math.max(left.prerelease.length, right.prerelease.length); i++) {
    const l = left.prerelease[i]
    const r = right.prerelease[i]
    if (l === undefined) return -1
    if (r === undefined) return 1
    const order = compareIdentifiers(l, r)
    if (order !== 0) return order
  }
  return 0
}
