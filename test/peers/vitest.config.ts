import path from 'node:path'
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin'
import { defineConfig } from 'vitest/config'
import { freePort } from '../../node-agent/testing/harness.ts'
import { testBindings } from '../worker-bindings.ts'

// `npm run test:peers`: the panel in workerd against real peers that global-setup.ts starts on 127.0.0.1 and
// stops at the end (PowerDNS, dnsdist, Caddy, pebble, the reference agent). Bindings match the main config's
// workerd project, except the resolver: dnsdist, on a port chosen here because the bindings are fixed before
// the global setup runs (it reads the port from PEERS_RESOLVER_PORT).
const root = path.join(import.meta.dirname, '../..')
const migrations = await readD1Migrations(path.join(root, 'migrations'))
process.env.PEERS_RESOLVER_PORT ??= String(await freePort())

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
          DOH_RESOLVER_URL: `http://127.0.0.1:${process.env.PEERS_RESOLVER_PORT}/dns-query`,
        },
      },
    }),
  ],
  test: {
    name: 'peers',
    include: ['test/peers/**/*.test.ts'],
    setupFiles: ['./test/helpers/apply-migrations.ts'],
    globalSetup: ['./test/peers/global-setup.ts'],
    // The files share the peers (a test stops a box or Caddy), so they run one after another.
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
})
