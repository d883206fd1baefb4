import { availableParallelism } from 'node:os'
import path from 'node:path'
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin'
import { defineConfig } from 'vitest/config'
import { preBundledDeps } from './test/helpers/pre-bundled-deps.ts'
import { testBindings } from './test/worker-bindings.ts'

const migrations = await readD1Migrations(path.join(import.meta.dirname, 'migrations'))

export default defineConfig({
  test: {
    // Vitest's default (one worker fewer than the cores) runs one file at a time on a 2-core machine; each file
    // spends most of its time in workerd's setup, so two at once finish 27% sooner there (40 files: 336 s → 245 s).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: './wrangler.toml' },
            miniflare: {
              bindings: { ...testBindings, TEST_MIGRATIONS: migrations },
            },
          }),
        ],
        // The Worker's zod, as wrangler.toml's [alias] bundles it (src/zod-english/index.ts).
        resolve: {
          alias: [{ find: /^zod$/, replacement: path.join(import.meta.dirname, 'src/zod-english/index.ts') }],
        },
        test: {
          name: 'workerd',
          deps: preBundledDeps,
          include: ['test/**/*.test.ts'],
          exclude: ['test/node/**', 'test/peers/**', 'test/ui/**'],
          setupFiles: ['./test/helpers/apply-migrations.ts', './test/helpers/binding-spies.ts'],
          // Loopback TCP and TLS servers (127.0.0.1 only) for the probe check tests, closed on teardown.
          // Debian's feedparser behind a loopback server, for the feed tests (test/feeds/reader.ts).
          globalSetup: ['./test/probes/servers/global-setup.ts', './test/feeds/reader-setup.ts'],
        },
      },
      {
        test: {
          name: 'node',
          environment: 'node',
          include: ['test/node/**/*.test.ts'],
          typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './test/tsconfig.json' },
        },
      },
    ],
  },
})
