import { execFile } from 'node:child_process'
import { createServer, type IncomingMessage } from 'node:http'
import type { TestProject } from 'vitest/node'

// Runs in Node before the workerd tests: a loopback server that hands a feed's bytes to Debian's feedparser
// (python3-feedparser, run by /usr/bin/python3, not a pyenv python on PATH) and answers what it read. workerd
// cannot start a process; the tests POST each feed here (test/feeds/reader.ts).

const PYTHON = '/usr/bin/python3'
const READ = `
import json, sys, feedparser
d = feedparser.parse(sys.stdin.buffer.read())
def entry(e):
    return {k: e.get(k) for k in ('id', 'title', 'link', 'updated', 'published', 'summary')}
print(json.dumps({
    'bozo': int(d.bozo),
    'bozoException': str(d.get('bozo_exception', '')),
    'version': d.version,
    'feed': {k: d.feed.get(k) for k in ('id', 'title', 'link', 'updated', 'subtitle')},
    'links': [{'rel': l.get('rel'), 'href': l.get('href')} for l in d.feed.get('links', [])],
    'entries': [entry(e) for e in d.entries],
}))
`

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => resolve(Buffer.concat(chunks)))
    request.on('error', reject)
  })
}

function feedparser(body: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(PYTHON, ['-c', READ], { timeout: 30_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`feedparser failed: ${stderr || error.message}`)) : resolve(stdout),
    )
    child.stdin?.end(body)
  })
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = createServer(async (request, response) => {
    try {
      const parsed = await feedparser(await readBody(request))
      response.writeHead(200, { 'content-type': 'application/json' }).end(parsed)
    } catch (error) {
      response.writeHead(500, { 'content-type': 'text/plain' }).end(String(error))
    }
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  const address = server.address()
  if (typeof address !== 'object' || !address) throw new Error('the feed reader has no port')
  project.provide('feedReader', `http://127.0.0.1:${address.port}`)
  return () => new Promise<void>((resolve) => server.close(() => resolve()))
}

declare module 'vitest' {
  export interface ProvidedContext {
    feedReader: string
  }
}
