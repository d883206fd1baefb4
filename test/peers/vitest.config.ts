import path from 'node:path'
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin'
import { defineConfig } from 'vitest/config'
import { testBindings } from '../worker-bindings.ts'

// `npm run test:peers`: the PowerDNS contract tests in workerd against two real pdns_server processes that
// global-setup.ts starts on 127.0.0.1 and stops at the end. Bindings match the main config's workerd project.
const root = path.join(import.meta.dirname, '../..')
const migrations = await readD1Migrations(path.join(root, 'migrations'))

export default defineConfig({
  root,
  plugins: [
    cloudflareTest({
      wrangler: { configPath: path.join(root, 'wrangler.toml') },
      miniflare: {
        bindings: {
          ...testBindings,
          TEST_MIGRATIONS: migrations,
          // The real boxes answer on http://127.0.0.1, which production's outbound rule refuses.
          ENVIRONMENT: 'development',
          // Nothing here may leave the machine: DNS lookups (custom-hostname status) go to a closed local port.
          DOH_RESOLVER_URL: 'http://127.0.0.1:9/dns-query',
        },
      },
    }),
  ],
  test: {
    name: 'peers',
    include: ['test/peers/**/*.test.ts'],
    setupFiles: ['./test/helpers/apply-migrations.ts'],
    globalSetup: ['./test/peers/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
})
