import path from 'node:path'
import { defineConfig } from 'vitest/config'

// `npm run test:ui`: the pages in Debian's chromium (playwright-core) against `wrangler dev` on a scratch
// database. global-setup.ts starts one wrangler dev and one browser for the whole run; each test opens its own
// browser context (test/ui/helpers.ts).
const root = path.join(import.meta.dirname, '../..')

export default defineConfig({
  root,
  test: {
    name: 'ui',
    environment: 'node',
    include: ['test/ui/**/*.test.ts'],
    globalSetup: ['./test/ui/global-setup.ts'],
    // One panel and one browser: the files run one after another (they share the database, too).
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
})
