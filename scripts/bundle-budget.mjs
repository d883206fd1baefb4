// The last step of `npm run build`: bundles the Worker as `wrangler deploy` would (`--dry-run --outdir`, with
// wrangler.toml's minify), prints its size raw and gzip — what Cloudflare's script size limit counts; the source
// maps are uploaded beside it and do not count — and fails above the budget.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { gzipSync } from 'node:zlib'

// The minified bundle measured 1,217 KiB raw and 338 KiB gzip when the budget was last set (with croner, status
// pages and notification channels). zod's locales (every language's error messages, about 260 KiB raw) are the
// largest part no request uses: trimming them is the way back under 1.2 MiB / 300 KiB.
const BUDGET = { raw: 1260 * 1024, gzip: 345 * 1024 }

const root = path.resolve(import.meta.dirname, '..')
// Run on this Node (the project's pinned one under npm), whatever `node` the bin's shebang would find.
const wrangler = path.join(root, 'node_modules/wrangler/bin/wrangler.js')
const KiB = (bytes) => `${(bytes / 1024).toFixed(2)} KiB`

/** The bundle's modules (not its source maps) and their total size raw and gzip; null when the dry run failed. */
function measure(outDir) {
  const dryRun = spawnSync(process.execPath, [wrangler, 'deploy', '--dry-run', '--outdir', outDir], {
    cwd: root,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
    encoding: 'utf8',
  })
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

const outDir = mkdtempSync(path.join(tmpdir(), 'panel-bundle-'))
const size = measure(outDir)
rmSync(outDir, { recursive: true, force: true })
if (!size) process.exit(1)
console.log(
  `Worker bundle (${size.modules.join(', ')}): ${KiB(size.raw)} raw / ${KiB(size.gzip)} gzip` +
    ` (budget ${KiB(BUDGET.raw)} / ${KiB(BUDGET.gzip)})`,
)
const over = ['raw', 'gzip'].filter((kind) => size[kind] > BUDGET[kind])
if (over.length > 0) {
  console.error(`the Worker bundle is over budget (${over.join(' and ')}): see what grew with --metafile`)
  process.exit(1)
}
