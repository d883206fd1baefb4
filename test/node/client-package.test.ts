import { execFileSync } from 'node:child_process'
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

// The client package as a developer gets it: built, packed with `npm pack`, installed from the tarball into a
// project that has nothing else (no network: the package has no dependencies), compiled and run.

const root = path.resolve(import.meta.dirname, '../..')
const tsc = path.join(root, 'node_modules/typescript/bin/tsc')
const PACKAGE = '@hosting-panel/client'

/** The README's example, exactly as the README shows it: the first TypeScript block. */
function readmeExample(): string {
  const readme = readFileSync(path.join(root, 'client/README.md'), 'utf8')
  const block = /```ts\n([\s\S]*?)```/.exec(readme)?.[1]
  if (!block) throw new Error('client/README.md has no ```ts block')
  return block
}

// Runs the example against a scripted panel; the checks below it only have to fail to compile.
const checks = `
import { createClient, type ErrorCodeOf, isPanelError, PanelError, verifyServiceSignature } from '${PACKAGE}'
import { connectHostname, followNodeProbes, monitorShop, ops, site } from './example.js'

const problem = (code: string, status: number) =>
  new Response(JSON.stringify({ type: 'urn:hosting-panel:problem:' + code, title: code, status, detail: code, code, requestId: 'r1' }), { status })
const json = (body: unknown) => new Response(JSON.stringify(body))

/** A scripted panel: what each procedure answers, in order of calls. */
function panel(script: Record<string, Response[]>, seen: string[]) {
  return createClient({
    baseUrl: 'https://panel.example/',
    token: 'spat_example',
    fetch: async (url, init) => {
      const name = url.slice(url.lastIndexOf('/') + 1)
      seen.push(name + ' ' + init.headers.authorization)
      const answer = script[name]?.shift()
      if (!answer) throw new Error('unscripted call ' + name)
      return answer
    },
  })
}

const row = { state: 'active', tier: 'hosted', records: [], dns: { resolves: true, checkedAt: 'now' } }

export async function run() {
  const seen: string[] = []
  const hosted = panel({
    'customHostnames.probe': [json({ verdict: 'auto', reason: null })],
    'customHostnames.register': [json({ state: 'pending' })],
    'customHostnames.status': [json({ ...row, state: 'pending', cert: { issued: false } }), json({ ...row, cert: { issued: true } })],
  }, seen)
  const records = await connectHostname(hosted, 's1', 'shop.customer.test', 1)
  const record = { type: 'CNAME', name: 'www.customer.example', value: 'edge.panel.example', ttl: 300 }
  const older = panel({
    'customHostnames.probe': [problem('procedure_not_found', 404)],
    'customHostnames.register': [json({ state: 'instructions' })],
    'customHostnames.status': [json({ ...row, state: 'instructions', records: [record], cert: { issued: false } })],
  }, seen)
  const instructions = await connectHostname(older, 's1', 'www.customer.example', 1)
  const taken = panel({ 'customHostnames.probe': [json({ verdict: 'auto' })], 'customHostnames.register': [problem('collision', 409)] }, seen)
  const collision = await connectHostname(taken, 's1', 'taken.customer.test', 1).catch((error: Error) => error.message)
  const created = await monitorShop(panel({ 'probes.create': [json({ id: 'p1', state: 'paused' })] }, seen))
  const frames = 'id: 7\\ndata: {"id":"p1","name":"edge-1 http","state":"up"}\\n\\n' +
    'id: 8\\ndata: {"id":"p1","name":"edge-1 http","state":"down"}\\n\\n'
  const states: string[] = []
  const stop = new AbortController()
  await followNodeProbes(panel({ 'probes.watch': [new Response(frames)] }, seen), stop.signal, (name, state) => {
    states.push(name + ': ' + state)
    if (state === 'down') stop.abort()
  })
  return { records, instructions, collision, created: created.id, states, seen, clients: [typeof site.customHostnames.status, typeof ops.probes.watch] }
}

export async function typeErrors(panel: typeof ops): Promise<void> {
  const http = { name: 'shop', type: 'http', targetKind: 'external', target: 'https://shop.example/' } as const
  // @ts-expect-error a misspelt config key
  await panel.probes.create({ ...http, config: { intervalSecond: 30 } })
  // @ts-expect-error intervalSeconds is a number
  await panel.probes.create({ ...http, config: { intervalSeconds: 'x' } })
  // @ts-expect-error a misspelt key in a config patch
  await panel.probes.update({ id: 'p1', config: { timeoutMS: 900 } })
  // @ts-expect-error a misspelt notifyConfig key
  await panel.probes.update({ id: 'p1', notifyConfig: { cooldown: 60 } })
  // @ts-expect-error agentSecret is required
  await panel.nodes.create({ name: 'two', agentUrl: 'https://agent.example' })
  // @ts-expect-error unknown input field
  await panel.nodes.list({ bogus: 1 })
  // @ts-expect-error no such procedure
  await panel.nodes.explode()
  const created = await panel.nodes.create({ name: 'two', agentUrl: 'https://agent.example', agentSecret: 'agent-secret-0123456789' })
  // @ts-expect-error the output never carries the secret
  created.agentSecret
  const failure: unknown = null
  if (isPanelError(failure, panel.nodes.remove)) {
    const code: ErrorCodeOf<typeof panel.nodes.remove> = failure.problem.code
    // @ts-expect-error nodes.remove never answers collision
    code === 'collision'
  }
  // @ts-expect-error header values are strings
  createClient({ baseUrl: '/', headers: { 'x-retries': 3 } })
  const verdict = await verifyServiceSignature('{}', { 'x-service-signature': 'sha256=00' }, 'secret-0123456789')
  if (!verdict.ok && failure instanceof PanelError) failure.problem.requestId.length
}
`

const strict = { strict: true, noUncheckedIndexedAccess: true, skipLibCheck: false, target: 'ES2022' }

const projects = {
  nodenext: {
    ...strict,
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2023'],
    types: ['node'],
    typeRoots: [path.join(root, 'node_modules/@types')],
    outDir: 'out',
  },
  bundler: {
    ...strict,
    module: 'ESNext',
    moduleResolution: 'bundler',
    lib: ['ES2023', 'DOM'],
    types: [],
    exactOptionalPropertyTypes: true,
    noEmit: true,
  },
}

let work = ''
let started = 0
let tarball = ''
/** What `npm pack` reports the package unpacks to, in bytes. */
let unpackedSize = 0

const consumer = () => path.join(work, 'consumer')
const installed = () => path.join(consumer(), 'node_modules', PACKAGE)

function write(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true })
  writeFileSync(file, text)
}

function sizeOf(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((sum, entry) => sum + statSync(path.join(entry.parentPath, entry.name)).size, 0)
}

const run = (command: string, args: string[], cwd: string) =>
  execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })

/** Runs tsc on a consumer project and answers the files it read from the consumer's node_modules. */
function compile(project: string): string[] {
  let listed: string
  try {
    listed = run(process.execPath, [tsc, '-p', path.join(consumer(), project), '--listFiles'], consumer())
  } catch (error) {
    const out = (error as { stdout?: string }).stdout ?? String(error)
    throw new Error(`the ${project} consumer does not compile:\n${out}`)
  }
  const installedFiles = path.join(consumer(), 'node_modules') + path.sep
  return listed.split('\n').filter((file) => file.startsWith(installedFiles))
}

describe('the client package, packed, installed and used by a project with nothing else', () => {
  beforeAll(() => {
    started = performance.now()
    work = mkdtempSync(path.join(tmpdir(), 'client-package-'))
    // The package directory as `npm pack ./client` sees it after `npm run build:client`, built aside so the
    // worktree's client/dist is left alone.
    const pkg = path.join(work, 'client')
    for (const file of ['package.json', 'README.md'])
      cpSync(path.join(root, 'client', file), path.join(pkg, file))
    run(
      process.execPath,
      [path.join(root, 'scripts/build-client.mjs'), '--out', path.join(pkg, 'dist')],
      root,
    )
    const packed = JSON.parse(
      run('npm', ['pack', pkg, '--ignore-scripts', '--json', '--pack-destination', work], work),
    )
    const [pack] = packed as { filename: string; unpackedSize: number }[]
    tarball = path.join(work, pack?.filename ?? '')
    unpackedSize = pack?.unpackedSize ?? 0
    write(
      path.join(consumer(), 'package.json'),
      JSON.stringify({
        name: 'consumer',
        private: true,
        type: 'module',
        dependencies: { [PACKAGE]: `file:${tarball}` },
      }),
    )
    run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], consumer())
    for (const [project, compilerOptions] of Object.entries(projects)) {
      const dir = path.join(consumer(), project)
      write(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }))
      write(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['*.ts'] }))
      write(path.join(dir, 'example.ts'), readmeExample())
      write(path.join(dir, 'checks.ts'), checks)
    }
  }, 60_000)

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true })
    console.log(
      `client pack + install + two consumer compiles: ${Math.round(performance.now() - started)} ms`,
    )
  })

  it('should install alone: no dependency, under 1 MB, with its README and declarations', () => {
    const manifest = JSON.parse(readFileSync(path.join(installed(), 'package.json'), 'utf8'))
    expect(manifest).not.toHaveProperty('dependencies')
    expect(
      readdirSync(path.join(consumer(), 'node_modules')).filter((entry) => !entry.startsWith('.')),
    ).toEqual(['@hosting-panel'])
    const size = sizeOf(path.join(consumer(), 'node_modules'))
    console.log(`installed size of ${PACKAGE}: ${size} bytes (tarball ${statSync(tarball).size} bytes)`)
    expect(size).toBeLessThan(1_000_000)
    expect(readdirSync(installed()).sort()).toEqual(['README.md', 'dist', 'package.json'])
    expect(readdirSync(path.join(installed(), 'dist/client'))).toEqual(
      expect.arrayContaining(['index.js', 'index.d.ts', 'procedures.d.ts']),
    )
  })

  it('should unpack to within a tenth of the size client/README.md and docs/api.md give', () => {
    const stated = [
      { file: 'client/README.md', pattern: /installs in about (\d+) kB/ },
      { file: 'docs/api.md', pattern: /@hosting-panel\/client[\s\S]{0,400}?in about (\d+) kB/ },
    ].map(({ file, pattern }) => {
      const kB = pattern.exec(readFileSync(path.join(root, file), 'utf8'))?.[1]
      if (!kB) throw new Error(`${file} gives no installed size`)
      return Number(kB) * 1000
    })
    for (const bytes of stated)
      expect(Math.abs(unpackedSize - bytes) / bytes, `${unpackedSize} bytes`).toBeLessThan(0.1)
  })

  it('should compile the README example in a NodeNext consumer, reading only the package declarations', () => {
    const read = compile('nodenext')
    expect(read.length).toBeGreaterThan(0)
    for (const file of read) expect(file).toMatch(/node_modules\/@hosting-panel\/client\/dist\/.*\.d\.ts$/)
  }, 30_000)

  it('should compile the README example in a bundler consumer with exact optional properties', () => {
    for (const file of compile('bundler'))
      expect(file).toMatch(/node_modules\/@hosting-panel\/client\/dist\//)
  }, 30_000)

  it('should run the README example in plain Node against a scripted panel', () => {
    const entry = path.join(consumer(), 'nodenext/out/checks.js')
    const script = `const { run } = await import(${JSON.stringify(entry)}); console.log(JSON.stringify(await run()))`
    const out = run(process.execPath, ['--input-type=module', '-e', script], consumer())
    const record = { type: 'CNAME', name: 'www.customer.example', value: 'edge.panel.example', ttl: 300 }
    expect(JSON.parse(out)).toEqual({
      records: [],
      instructions: [record],
      collision: 'taken.customer.test is in use by another site',
      created: 'p1',
      states: ['edge-1 http: up', 'edge-1 http: down'],
      seen: [
        'customHostnames.probe Bearer spat_example',
        'customHostnames.register Bearer spat_example',
        'customHostnames.status Bearer spat_example',
        'customHostnames.status Bearer spat_example',
        'customHostnames.probe Bearer spat_example',
        'customHostnames.register Bearer spat_example',
        'customHostnames.status Bearer spat_example',
        'customHostnames.probe Bearer spat_example',
        'customHostnames.register Bearer spat_example',
        'probes.create Bearer spat_example',
        'probes.watch Bearer spat_example',
      ],
      clients: ['function', 'function'],
    })
  })
})
