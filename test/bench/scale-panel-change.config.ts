import path from 'node:path'
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin'
import { defineConfig } from 'vitest/config'
import { testBindings } from '../worker-bindings.ts'

// The workerd project of vitest.config.ts, running the panel-change bench alone (test/bench/scale-panel-change.mjs).
const root = path.join(import.meta.dirname, '../..')
const migrations = await readD1Migrations(path.join(root, 'migrations'))

export default defineConfig({
  root,
  plugins: [
    cloudflareTest({
      wrangler: { configPath: './wrangler.toml' },
      miniflare: {
        bindings: {
          ...testBindings,
          TEST_MIGRATIONS: migrations,
          BENCH_HOSTNAMES: process.env.BENCH_HOSTNAMES ?? '10,10000,100000',
        },
      },
    }),
  ],
  resolve: {
    alias: [{ find: /^zod$/, replacement: path.join(root, 'src/zod-english/index.ts') }],
  },
  test: {
    include: ['test/bench/scale-panel-change.bench-test.ts'],
    setupFiles: ['./test/helpers/apply-migrations.ts', './test/helpers/binding-spies.ts'],
    testTimeout: 1_800_000,
    hookTimeout: 1_800_000,
  },
})
