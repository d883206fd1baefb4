import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const root = path.resolve(import.meta.dirname, '../..')
const tsc = path.join(root, 'node_modules/typescript/bin/tsc')

// One consumer source for both projects; the calls under `typeErrors` only have to fail to compile.
const consumer = `
import { createClient, type ErrorCodeOf, isPanelError, PanelError, verifyServiceSignature } from 'hosting-panel-api/client'

const panel = createClient({
  baseUrl: 'https://panel.example/',
  token: 'pat_example',
  headers: { 'x-trace': 'trace-1' },
  fetch: async (url, init) => {
    if (url.endsWith('nodes.remove')) {
      const problem = { type: 'urn:hosting-panel:problem:conflict', title: 'Conflict', status: 409, detail: 'in use', code: 'conflict', requestId: 'r1' }
      return new Response(JSON.stringify(problem), { status: 409 })
    }
    if (url.endsWith('nodes.list')) return new Response(JSON.stringify([{ id: 'n1', name: 'one', headers: init.headers }]))
    return new Response(JSON.stringify({ id: 'n2', hasAgentSecret: true }))
  },
})

type RemoveCode = ErrorCodeOf<typeof panel.nodes.remove>
const conflict: RemoveCode = 'conflict'

export async function run(): Promise<string> {
  const created = await panel.nodes.create({ name: 'two', agentUrl: 'https://agent.example', agentSecret: 'agent-secret-0123456789' })
  const id: string = created.id
  const listed = await panel.nodes.list()
  const names: string[] = listed.map((node) => node.name)
  const failure = await panel.nodes.remove({ id }).catch((error: unknown) => error)
  let code: RemoveCode | 'none' = 'none'
  if (isPanelError(failure, panel.nodes.remove)) code = failure.problem.code
  const verdict = await verifyServiceSignature('{}', { 'x-service-signature': 'sha256=00' }, 'secret-0123456789')
  return JSON.stringify({ id, names, code, conflict, isPanelError: failure instanceof PanelError, verdict: verdict.ok, headers: listed[0] })
}

export async function typeErrors(): Promise<void> {
  // @ts-expect-error agentSecret is required
  await panel.nodes.create({ name: 'two', agentUrl: 'https://agent.example' })
  // @ts-expect-error unknown input field
  await panel.nodes.list({ bogus: 1 })
  // @ts-expect-error role is admin or operator
  await panel.users.create({ email: 'a@b.c', password: 'x'.repeat(12), role: 'root' })
  // @ts-expect-error nodes.get needs an id
  await panel.nodes.get()
  // @ts-expect-error no such procedure
  await panel.nodes.explode()
  const created = await panel.nodes.create({ name: 'two', agentUrl: 'https://agent.example', agentSecret: 'agent-secret-0123456789' })
  // @ts-expect-error the output never carries the secret
  created.agentSecret
  const failure: unknown = null
  if (isPanelError(failure, panel.nodes.remove)) {
    // @ts-expect-error nodes.remove never answers collision
    failure.problem.code === 'collision'
  }
  // @ts-expect-error header values are strings
  createClient({ baseUrl: '/', headers: { 'x-retries': 3 } })
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

function write(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true })
  writeFileSync(file, text)
}

/** Runs tsc on a consumer project and returns the files it read from the package. */
function compile(project: string): string[] {
  const dir = path.join(work, project)
  let listed: string
  try {
    listed = execFileSync(process.execPath, [tsc, '-p', dir, '--listFiles'], { encoding: 'utf8' })
  } catch (error) {
    const out = (error as { stdout?: string }).stdout ?? String(error)
    throw new Error(`${project} consumer does not compile:\n${out}`)
  }
  return listed
    .split('\n')
    .filter((file) => file.includes('hosting-panel-api'))
    .map((file) => path.relative(path.join(work, 'node_modules/hosting-panel-api'), file))
}

describe('the built client, as a consumer project uses it', () => {
  beforeAll(() => {
    started = performance.now()
    work = mkdtempSync(path.join(tmpdir(), 'client-build-'))
    const pkg = path.join(work, 'node_modules/hosting-panel-api')
    execFileSync(
      process.execPath,
      [path.join(root, 'scripts/build-client.mjs'), '--out', path.join(pkg, 'dist')],
      {
        cwd: root,
        encoding: 'utf8',
      },
    )
    const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >
    const { name, type, exports } = manifest
    write(path.join(pkg, 'package.json'), JSON.stringify({ name, type, exports }))
    for (const [project, compilerOptions] of Object.entries(projects)) {
      write(path.join(work, project, 'package.json'), JSON.stringify({ type: 'module' }))
      write(path.join(work, project, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['*.ts'] }))
      write(path.join(work, project, 'use.ts'), consumer)
    }
  }, 60_000)

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true })
    console.log(`client build + two consumer compiles: ${Math.round(performance.now() - started)} ms`)
  })

  it('should emit JavaScript and declarations under dist/client', () => {
    const emitted = readdirSync(path.join(work, 'node_modules/hosting-panel-api/dist/client'))
    expect(emitted).toEqual(expect.arrayContaining(['index.js', 'index.d.ts', 'procedures.d.ts']))
  })

  it('should compile a NodeNext consumer against declarations that read nothing outside dist', () => {
    const read = compile('nodenext')
    expect(read.length).toBeGreaterThan(0)
    for (const file of read) expect(file).toMatch(/^dist\/.*\.d\.ts$/)
  }, 30_000)

  it('should compile a bundler consumer with exact optional properties', () => {
    const read = compile('bundler')
    for (const file of read) expect(file).toMatch(/^dist\/.*\.d\.ts$/)
  }, 30_000)

  it('should run the built JavaScript in plain Node through the package exports', () => {
    const entry = path.join(work, 'nodenext/out/use.js')
    const script = `const { run } = await import(${JSON.stringify(entry)}); console.log(await run())`
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })
    expect(JSON.parse(out)).toEqual({
      id: 'n2',
      names: ['one'],
      code: 'conflict',
      conflict: 'conflict',
      isPanelError: true,
      verdict: false,
      headers: {
        id: 'n1',
        name: 'one',
        headers: {
          'x-trace': 'trace-1',
          'content-type': 'application/json',
          authorization: 'Bearer pat_example',
        },
      },
    })
  })
})
