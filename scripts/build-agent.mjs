// Bundles the reference node agent into one file, node-agent/dist/agent.mjs: its sources, the contract and
// signing code it shares with the panel, and zod, as one ES module that runs on a plain Node 20 or later with no
// node_modules (Debian's nodejs package is enough). node-agent/deploy/install.sh installs it.
import path from 'node:path'
import { build } from 'esbuild'

const root = path.resolve(import.meta.dirname, '..')
const outfile = path.join(root, 'node-agent/dist/agent.mjs')

await build({
  entryPoints: [path.join(root, 'node-agent/main.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  banner: { js: '#!/usr/bin/env node' },
  legalComments: 'eof',
  logLevel: 'warning',
})
console.log(`built ${path.relative(root, outfile)}`)
