import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium } from 'playwright-core'
import { build } from 'vite'
import type { TestProject } from 'vitest/node'
import { startFakeAgent } from './fake-agent.ts'
import { startFakeResolver } from './fake-resolver.ts'
import { applyMigrations, WranglerDev } from './wrangler-dev.ts'

// Runs once in Node before the UI tests: builds the pages into a temporary directory (so runs side by side
// never serve each other's half-written build), starts the fake DoH resolver and node agent, `wrangler dev` on
// a scratch database serving that build, and one headless Debian chromium that every test file connects to.
// Everything is stopped and removed on teardown, also when a step fails.

const root = path.join(import.meta.dirname, '../..')
const CHROMIUM = '/usr/bin/chromium'

/** What the UI tests see of the setup. */
export interface UiContext {
  baseUrl: string
  /** The bootstrap admin: the first sign-in with these creates the user. */
  admin: { email: string; password: string }
  /** Playwright's endpoint of the shared browser (`chromium.connect`). */
  browserEndpoint: string
  /** The fake node agent (test/ui/fake-agent.ts): create nodes with this URL and FAKE_AGENT_SECRET. */
  agentUrl: string
  /** wrangler dev's --persist-to: a test seeds rows in bulk with `executeSqlFile` (wrangler-dev.ts). */
  persistTo: string
}

async function timed<T>(step: string, run: () => Promise<T>): Promise<T> {
  const start = performance.now()
  const result = await run()
  console.log(`ui: ${step} in ${((performance.now() - start) / 1000).toFixed(1)} s`)
  return result
}

function assertPrerequisites(): void {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium (playwright-core drives it; no browser download)`,
    )
  if (!existsSync(path.join(root, 'client/dist/client/index.js')))
    throw new Error('client/dist is missing: run `npm run build` (the pages import the built typed client)')
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  assertPrerequisites()
  const scratch = mkdtempSync(path.join(tmpdir(), 'panel-ui-'))
  const stops: (() => Promise<void>)[] = []
  const teardown = async () => {
    for (const stop of stops.reverse()) await stop()
    rmSync(scratch, { recursive: true, force: true })
  }
  try {
    const assets = path.join(scratch, 'web')
    const persistTo = path.join(scratch, 'state')
    mkdirSync(persistTo)
    const [resolver, agent] = await Promise.all([startFakeResolver(), startFakeAgent()])
    stops.push(resolver.close, agent.close)
    await Promise.all([
      timed('built the pages', () =>
        build({
          configFile: path.join(root, 'web/vite.config.ts'),
          logLevel: 'error',
          build: { outDir: assets, emptyOutDir: true },
        }),
      ),
      timed('applied the migrations', () => applyMigrations(persistTo)),
    ])
    // The changelog widget beside the pages, at /widget/changelog.js (after them: their build empties the folder).
    await build({
      configFile: path.join(root, 'web/widget/vite.config.ts'),
      logLevel: 'error',
      build: { outDir: path.join(assets, 'widget') },
    })
    const admin = { email: 'admin@ui.test', password: 'ui-admin-password-123' }
    const dev = await timed('wrangler dev answered', async () => {
      const started = await WranglerDev.start({
        persistTo,
        assets,
        vars: {
          SECRETS_KEY: Buffer.alloc(32, 11).toString('base64url'),
          SECRETS_KEY_PREVIOUS: '',
          BOOTSTRAP_ADMIN_EMAIL: admin.email,
          BOOTSTRAP_ADMIN_PASSWORD: admin.password,
          ENVIRONMENT: 'development',
          DOH_RESOLVER_URL: resolver.url,
          IMAGE_TAG: 'ui-test',
          ALERT_EMAIL_FROM: 'alerts@ui.test',
        },
      })
      stops.push(() => started.stop())
      return started
    })
    const page = await fetch(dev.url)
    const html = await page.text()
    if (!page.ok || !html.includes('id="root"'))
      throw new Error(`GET ${dev.url}/ is not the pages' index.html: ${page.status} ${html.slice(0, 200)}`)
    const browser = await timed('chromium started', () =>
      chromium.launchServer({ executablePath: CHROMIUM, headless: true, host: '127.0.0.1' }),
    )
    stops.push(() => browser.close())
    const context: UiContext = {
      baseUrl: dev.url,
      admin,
      browserEndpoint: browser.wsEndpoint(),
      agentUrl: agent.url,
      persistTo,
    }
    project.provide('ui', context)
  } catch (error) {
    await teardown()
    throw error
  }
  return teardown
}

declare module 'vitest' {
  export interface ProvidedContext {
    ui: UiContext
  }
}
