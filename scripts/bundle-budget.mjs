// The last step of `npm run build`: bundles the Worker as `wrangler deploy` would (`--dry-run --outdir`, with
// wrangler.toml's minify), prints its size raw and gzip — what Cloudflare's script size limit counts; the source
// maps are uploaded beside it and do not count — and fails above the budget. `--breakdown` also prints where the
// bytes go: the minified bytes of each package and of each area of the app, from esbuild's metafile.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { gzipSync } from 'node:zlib'

// 973 KiB raw / 303 KiB gzip when the budget was last set (zod's other languages aliased away in src/zod-english,
// functions keeping no names): 1.5 MiB raw / 450 KiB gzip leaves room for the features ahead.
const BUDGET = { raw: 1536 * 1024, gzip: 450 * 1024 }
const BREAKDOWN_ROWS = 15

const root = path.resolve(import.meta.dirname, '..')
// Run on this Node (the project's pinned one under npm), whatever `node` the bin's shebang would find.
const wrangler = path.join(root, 'node_modules/wrangler/bin/wrangler.js')
const KiB = (bytes) => `${(bytes / 1024).toFixed(2)} KiB`
const { values: options } = parseArgs({ options: { breakdown: { type: 'boolean', default: false } } })

/** The bundle's modules (not its source maps) and their total size raw and gzip; null when the dry run failed. */
function measure(outDir) {
  const metafile = options.breakdown ? ['--metafile', path.join(outDir, 'meta.json')] : []
  const dryRun = spawnSync(
    process.execPath,
    [wrangler, 'deploy', '--dry-run', '--outdir', outDir, ...metafile],
    {
      cwd: root,
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
      encoding: 'utf8',
    },
  )
  if (dryRun.status !== 0) {
    console.error(`wrangler deploy --dry-run failed:\n${dryRun.stdout}${dryRun.stderr}`)
    return null
  }
  const modules = readdirSync(outDir).filter((file) => file.endsWith('.js') || file.endsWith('.mjs'))
  const size = { modules, raw: 0, gzip: 0 }
  for (const file of modules) {
    const bytes = readFileSync(path.join(outDir, file))
    size.raw += bytes.length
    size.gzip += gzipSync(bytes).length
  }
  return size
}

/** The package (`node_modules/<name>`) or app area (`src/<dir>`, `durable-objects`) an input file belongs to. */
function owner(input) {
  const inPackage = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)
  if (inPackage) return inPackage[1]
  const [top, area] = path.relative(root, path.resolve(root, input)).split(path.sep)
  return top === 'src' && area && !area.includes('.') ? `src/${area}` : top
}

/** Prints the minified bytes of the bundle per owner, largest first, from esbuild's metafile. */
function printBreakdown(metafile) {
  const bytes = new Map()
  for (const [output, { inputs }] of Object.entries(metafile.outputs)) {
    if (output.endsWith('.map')) continue
    for (const [input, { bytesInOutput }] of Object.entries(inputs)) {
      bytes.set(owner(input), (bytes.get(owner(input)) ?? 0) + bytesInOutput)
    }
  }
  const rows = [...bytes].sort((a, b) => b[1] - a[1])
  const rest = rows.slice(BREAKDOWN_ROWS).reduce((sum, [, size]) => sum + size, 0)
  for (const [name, size] of rows.slice(0, BREAKDOWN_ROWS)) console.log(`${KiB(size).padStart(12)}  ${name}`)
  console.log(`${KiB(rest).padStart(12)}  ${rows.length - BREAKDOWN_ROWS} more`)
}

const outDir = mkdtempSync(path.join(tmpdir(), 'panel-bundle-'))
const size = measure(outDir)
if (size && options.breakdown)
  printBreakdown(JSON.parse(readFileSync(path.join(outDir, 'meta.json'), 'utf8')))
rmSync(outDir, { recursive: true, force: true })
if (!size) process.exit(1)
console.log(
  `Worker bundle (${size.modules.join(', ')}): ${KiB(size.raw)} raw / ${KiB(size.gzip)} gzip` +
    ` (budget ${KiB(BUDGET.raw)} / ${KiB(BUDGET.gzip)})`,
)
const over = ['raw', 'gzip'].filter((kind) => size[kind] > BUDGET[kind])
if (over.length > 0) {
  console.error(
    `the Worker bundle is over budget (${over.join(' and ')}): see what grew with` +
      ' `node scripts/bundle-budget.mjs --breakdown`',
  )
  process.exit(1)
}
