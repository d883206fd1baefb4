import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'
import { apiDocs } from './api-docs.ts'

// The panel's pages: built to web/dist, which wrangler.toml serves as the Worker's static assets.
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react(), apiDocs()],
  // The manifest lets scripts/build-web.mjs measure the first page's JavaScript (it removes the file after).
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, manifest: true },
  // The pages import the typed client from ../src/client.
  server: { proxy: { '/api': 'http://127.0.0.1:8787' }, fs: { allow: ['..'] } },
})
