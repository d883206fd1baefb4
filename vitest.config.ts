import path from 'node:path'
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin'
import { defineConfig } from 'vitest/config'

const migrations = await readD1Migrations(path.join(import.meta.dirname, 'migrations'))

export default defineConfig({
  test: {
    projects: [
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: './wrangler.toml' },
            miniflare: {
              bindings: {
                TEST_MIGRATIONS: migrations,
                SECRETS_KEY: 'dGVzdC1zZWNyZXRzLWtleS0zMi1ieXRlcy1sb25nISE',
                BOOTSTRAP_ADMIN_EMAIL: 'admin@panel.test',
                BOOTSTRAP_ADMIN_PASSWORD: 'bootstrap-password-123',
                PANEL_ORIGIN: 'https://panel.test',
              },
            },
          }),
        ],
        test: {
          name: 'workerd',
          include: ['test/**/*.test.ts'],
          exclude: ['test/node/**', 'test/peers/**'],
          setupFiles: ['./test/helpers/apply-migrations.ts'],
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
