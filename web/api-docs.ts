import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import type { Plugin } from 'vite'

// Puts Swagger UI's standalone build (swagger-ui-dist, pinned in package.json) into the build's docs/, beside
// web/public/docs/index.html and init.js: /docs serves the API reference from the panel's own assets, no CDN.
const FILES = [
  'swagger-ui-bundle.js',
  'swagger-ui-bundle.js.LICENSE.txt',
  'swagger-ui.css',
  'LICENSE',
  'NOTICE',
]

export function apiDocs(): Plugin {
  const dist = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
  return {
    name: 'api-docs',
    apply: 'build',
    generateBundle() {
      for (const file of FILES)
        this.emitFile({
          type: 'asset',
          fileName: `docs/${file}`,
          source: readFileSync(path.join(dist, file)),
        })
    },
  }
}
