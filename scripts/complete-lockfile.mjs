// The npm registry this project's machines reach lacks some other-platform builds (e.g. @biomejs/cli-darwin-arm64),
// so `npm install` leaves them out of package-lock.json and `npm ci` then refuses the lock as incomplete. This
// adds each missing optional platform package as an inert entry (version, os, cpu, libc): npm ci skips it on
// platforms it does not fit, exactly as with a lock written where the registry is complete.
// Run after `npm install` changes the lock: `npm run lockfile:complete`.
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'

const file = path.resolve(import.meta.dirname, '../package-lock.json')
const lock = JSON.parse(readFileSync(file, 'utf8'))
const packages = lock.packages

const OS = {
  darwin: 'darwin',
  linux: 'linux',
  win32: 'win32',
  windows: 'win32',
  android: 'android',
  freebsd: 'freebsd',
  openbsd: 'openbsd',
  netbsd: 'netbsd',
  sunos: 'sunos',
  aix: 'aix',
  openharmony: 'openharmony',
}
const CPU = {
  x64: 'x64',
  64: 'x64',
  arm64: 'arm64',
  arm: 'arm',
  ia32: 'ia32',
  riscv64: 'riscv64',
  ppc64: 'ppc64',
  s390x: 's390x',
  loong64: 'loong64',
  mips64el: 'mips64el',
}

function platformOf(name) {
  const words = name.split('/').pop().split('-')
  const os = words.map((w) => OS[w]).find(Boolean)
  const cpu = words.map((w) => CPU[w]).find(Boolean)
  if (!os || !cpu) throw new Error(`cannot tell the platform of ${name}; add its entry by hand`)
  return { os: [os], cpu: [cpu], ...(words.includes('musl') ? { libc: ['musl'] } : {}) }
}

// Where node would resolve `name` from the package at `location`: its own node_modules, then each ancestor's.
function resolve(location, name) {
  const parts = location ? location.split('/node_modules/') : []
  for (let depth = parts.length; depth >= 0; depth--) {
    const base = parts.slice(0, depth).join('/node_modules/')
    const candidate = `${base ? `${base}/` : ''}node_modules/${name}`
    if (packages[candidate]) return candidate
  }
  return undefined
}

// npm writes `version` first and the other keys alphabetically; matching it keeps `npm install` from rewriting
// the lock of a fresh clone.
function npmKeyOrder(entry) {
  const { version, ...rest } = entry
  return { version, ...Object.fromEntries(Object.entries(rest).sort(([a], [b]) => a.localeCompare(b))) }
}

let added = 0
for (const [location, entry] of Object.entries(packages)) {
  const optional = Object.entries(entry.optionalDependencies ?? {})
  // The missing builds go beside the ones the registry did have, so they resolve exactly as those do.
  const present = optional.map(([name, version]) => [name, resolve(location, name), version])
  const sibling = present.find(([, found, version]) => found && packages[found].version === version)
  if (!sibling) continue
  const dir = sibling[1].slice(0, -sibling[0].length)
  for (const [name, found, version] of present) {
    if (found && packages[found].version === version) continue
    packages[`${dir}${name}`] = npmKeyOrder({
      version,
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      ...platformOf(name),
    })
    added++
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
)
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`)
console.log(`package-lock.json: added ${added} inert optional platform entries`)
