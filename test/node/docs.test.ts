import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { procedures } from '../../src/rpc/registry'

// The README is the front door and docs/ the reference, one page per area. These keep both honest: every
// procedure of the registry is named on its area's page with its permission, no page names a procedure that does
// not exist, the README stays short, and every relative link (and anchor) leads somewhere on GitHub.

const root = path.join(import.meta.dirname, '../..')
const docsDir = path.join(root, 'docs')
const pages = readdirSync(docsDir).filter((file) => file.endsWith('.md'))
const read = (file: string) => readFileSync(path.join(root, file), 'utf8')
const documents = ['README.md', ...pages.map((page) => `docs/${page}`)]

/** Which page documents a procedure, by the start of its dotted name (the first match wins). */
const AREAS: readonly (readonly [string, string])[] = [
  ['sites.tokens.', 'custom-hostnames.md'],
  ['customHostnames.', 'custom-hostnames.md'],
  ['nodes.', 'fleet.md'],
  ['instances.', 'fleet.md'],
  ['sites.', 'fleet.md'],
  ['auth.', 'users-and-tokens.md'],
  ['users.', 'users-and-tokens.md'],
  ['tokens.', 'users-and-tokens.md'],
  ['audit.', 'users-and-tokens.md'],
  ['domains.', 'domains.md'],
  ['routes.', 'routes.md'],
  ['accounts.', 'dns-accounts.md'],
  ['dnsServers.', 'nameservers.md'],
  ['probes.', 'monitoring.md'],
  ['maintenance.', 'monitoring.md'],
  ['statusPages.', 'status-pages.md'],
  ['notifications.', 'notifications.md'],
  ['settings.notifications.', 'operations.md'],
  ['jobs.', 'operations.md'],
  ['changelog.', 'changelog.md'],
  ['meta.', 'changelog.md'],
  ['overview.', 'web-interface.md'],
]

function areaPage(name: string): string | undefined {
  return AREAS.find(([prefix]) => name.startsWith(prefix))?.[1]
}

/** The rows of a page's reference table: procedure name → the permission column. */
function referenceRows(text: string): Map<string, string> {
  const rows = new Map<string, string>()
  const reference = text.slice(text.lastIndexOf('\n## Reference'))
  for (const match of reference.matchAll(/^\| `([a-zA-Z.]+)` *\| *([^|]+?) *\|/gm))
    rows.set(match[1] ?? '', (match[2] ?? '').trim())
  return rows
}

/** GitHub's anchors for a page's headings: lowercase, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>()
  const out = new Set<string>()
  let fenced = false
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced
    const heading = !fenced && line.match(/^#{1,6} (.*)$/)?.[1]
    if (!heading) continue
    const base = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-')
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    out.add(count === 0 ? base : `${base}-${count}`)
  }
  return out
}

/** Every inline link's target outside code, with the line it is on. */
function links(text: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = []
  let fenced = false
  text.split('\n').forEach((line, index) => {
    if (line.startsWith('```')) fenced = !fenced
    if (fenced) return
    const prose = line.replace(/`[^`]*`/g, '')
    for (const match of prose.matchAll(/\]\(([^)\s]+)\)/g))
      out.push({ target: match[1] ?? '', line: index + 1 })
  })
  return out
}

describe('the docs', () => {
  it('should name every procedure on its area page, with its permission in the reference table', () => {
    const missing: string[] = []
    for (const [name, proc] of procedures) {
      const page = areaPage(name)
      if (!page) {
        missing.push(`${name}: no area page for its namespace (add it to AREAS here and to a page)`)
        continue
      }
      const text = read(`docs/${page}`)
      if (!text.includes(`\`${name}\``)) missing.push(`${name}: not named in backticks on docs/${page}`)
      const permission = referenceRows(text).get(name)
      if (permission !== proc.permission)
        missing.push(
          `${name}: the reference table of docs/${page} says ${permission}, the registry ${proc.permission}`,
        )
    }
    expect(missing).toEqual([])
  })

  it('should name no procedure that does not exist', () => {
    const namespaces = new Set([...procedures.keys()].map((name) => name.split('.')[0]))
    const known = new Set<string>()
    for (const name of procedures.keys()) {
      const parts = name.split('.')
      for (let i = 2; i <= parts.length; i++) known.add(parts.slice(0, i).join('.'))
    }
    const unknown: string[] = []
    for (const file of documents) {
      const text = read(file)
      // A dotted name that starts with a registry namespace, not inside a path, host or file name.
      for (const match of text.matchAll(/(?<![\w./@-])([a-z][a-zA-Z]*)((?:\.[a-zA-Z]+)+)(?![\w-]|\.\w)/g)) {
        const [name = '', namespace = ''] = match
        if (!namespaces.has(namespace) || known.has(name)) continue
        if (/\.(ts|mjs|js|md|json|toml|css|svg|html)$/.test(name)) continue
        unknown.push(`${file}: ${name}`)
      }
    }
    expect(unknown).toEqual([])
  })

  it('should keep the README a front door of at most 250 lines that maps every page', () => {
    const readme = read('README.md')
    expect(readme.split('\n').length).toBeLessThanOrEqual(250)
    for (const page of pages) expect(readme, `README.md maps docs/${page}`).toContain(`](docs/${page})`)
  })

  it('should open every page with what a reader can do there and end it with its reference', () => {
    for (const page of pages) {
      const text = read(`docs/${page}`)
      const lines = text.split('\n')
      expect(lines[0], page).toMatch(/^# \S/)
      expect(lines[2], `${page} opens with a paragraph`).toMatch(/^[^#|`\s-]/)
      const sections = [...text.matchAll(/^## (.*)$/gm)].map((match) => match[1])
      expect(sections.at(-1), `${page}'s last section`).toBe('Reference')
    }
  })

  it('should point every relative link to a file that exists, and an anchor to a heading there', () => {
    const broken: string[] = []
    for (const file of documents) {
      for (const { target, line } of links(read(file))) {
        if (/^[a-z]+:/.test(target)) continue
        const [filePart = '', anchor] = target.split('#')
        const resolved = filePart
          ? path.join(path.dirname(path.join(root, file)), filePart)
          : path.join(root, file)
        if (!existsSync(resolved)) {
          broken.push(`${file}:${line}: ${target} (no such file)`)
          continue
        }
        if (anchor && resolved.endsWith('.md') && !anchors(readFileSync(resolved, 'utf8')).has(anchor))
          broken.push(`${file}:${line}: ${target} (no such heading)`)
      }
    }
    expect(broken).toEqual([])
  })
})
