// Builds the web interface into web/dist (served by the Worker as static assets), then measures the JavaScript
// the first page loads — the entry chunk and everything it imports statically, read from Vite's manifest — and
// fails when that exceeds the budget in gzip. Lazily loaded chunks (dynamic imports such as uPlot) do not count.
import { readFileSync, rmSync } from 'node:fs'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { build } from 'vite'

const BUDGET_BYTES = 200 * 1000
const root = path.resolve(import.meta.dirname, '..')
const outDir = path.join(root, 'web/dist')
const manifestDir = path.join(outDir, '.vite')

/** The entry chunk's file and those of its static imports, each once. */
function firstPageScripts(manifest) {
  const entry = Object.keys(manifest).find((key) => manifest[key].isEntry)
  if (!entry) throw new Error('the Vite manifest has no entry chunk')
  const seen = new Set()
  const visit = (key) => {
    if (seen.has(key)) return
    seen.add(key)
    for (const imported of manifest[key].imports ?? []) visit(imported)
  }
  visit(entry)
  return [...seen].map((key) => manifest[key].file)
}

const started = performance.now()
// What ships is the production build of React and the rest, whatever NODE_ENV the shell (or a test runner) set.
process.env.NODE_ENV = 'production'
await build({ configFile: path.join(root, 'web/vite.config.ts'), logLevel: 'warn' })
// The changelog widget beside the pages, at /widget/changelog.js (after them: their build empties web/dist).
await build({ configFile: path.join(root, 'web/widget/vite.config.ts'), logLevel: 'warn' })
const manifest = JSON.parse(readFileSync(path.join(manifestDir, 'manifest.json'), 'utf8'))
// Everything in web/dist is served; the manifest is for this script only.
rmSync(manifestDir, { recursive: true, force: true })

const sizes = firstPageScripts(manifest).map((file) => ({
  file,
  gzip: gzipSync(readFileSync(path.join(outDir, file))).length,
}))
const total = sizes.reduce((sum, { gzip }) => sum + gzip, 0)
const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`
console.log(`built the web interface into web/dist in ${Math.round(performance.now() - started)} ms`)
for (const { file, gzip } of sizes) console.log(`  ${file}  ${kB(gzip)} gzip`)
console.log(`first page JavaScript: ${kB(total)} gzip (budget ${kB(BUDGET_BYTES)})`)
const widget = gzipSync(readFileSync(path.join(outDir, 'widget/changelog.js'))).length
console.log(`changelog widget (widget/changelog.js): ${kB(widget)} gzip`)
if (total > BUDGET_BYTES) {
  console.error(
    `the first page's JavaScript is over budget by ${kB(total - BUDGET_BYTES)}: load more with import()`,
  )
  process.exit(1)
}
