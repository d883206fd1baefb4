import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import type { Plugin } from 'vite'

// Puts Swagger UI's standalone build (swagger-ui-dist, pinned in package.json) into the build's docs/, beside
// web/public/docs/index.html and init.js: /docs serves the API reference from the panel's own assets, no CDN.
// The dev server (`npx vite --config web/vite.config.ts`) serves the same files from node_modules.
const FILES = [
  'swagger-ui-bundle.js',
  'swagger-ui-bundle.js.LICENSE.txt',
  'swagger-ui.css',
  'LICENSE',
  'NOTICE',
]
const TYPES: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css' }

export function apiDocs(): Plugin {
  const dist = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
  return {
    name: 'api-docs',
    generateBundle() {
      for (const file of FILES)
        this.emitFile({
          type: 'asset',
          fileName: `docs/${file}`,
          source: readFileSync(path.join(dist, file)),
        })
    },
    configureServer(server) {
      server.middlewares.use((request, response, next) => {
        const file = request.url?.match(/^\/docs\/([^?#]+)/)?.[1]
        if (!file || !FILES.includes(file)) return next()
        response.setHeader('content-type', TYPES[path.extname(file)] ?? 'text/plain')
        response.end(readFileSync(path.join(dist, file)))
      })
    },
  }
}
