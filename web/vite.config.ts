import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

// The panel's pages: built to web/dist, which wrangler.toml serves as the Worker's static assets.
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false },
  // The pages import the typed client from ../src/client.
  server: { proxy: { '/api': 'http://127.0.0.1:8787' }, fs: { allow: ['..'] } },
})
