import path from 'node:path'
import { defineConfig } from 'vite'

// The embeddable changelog widget: one small IIFE at web/dist/widget/changelog.js, built after the pages (their
// build empties web/dist) and served from the same static assets.
export default defineConfig({
  root: import.meta.dirname,
  publicDir: false,
  build: {
    outDir: path.join(import.meta.dirname, '../dist/widget'),
    emptyOutDir: false,
    sourcemap: false,
    minify: true,
    target: 'es2020',
    lib: {
      entry: path.join(import.meta.dirname, 'main.ts'),
      formats: ['iife'],
      name: 'HostingPanelChangelog',
      fileName: () => 'changelog.js',
    },
  },
})
