import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'
import { assertToolsInstalled, freePort, PowerDnsProcess } from './powerdns-boxes'

// Runs in Node before the workerd tests: starts two real PowerDNS boxes and a small control server through
// which the tests (inside workerd, which cannot spawn processes) stop and start a box and run dig.

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

function control(boxes: readonly PowerDnsProcess[]) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://control')
    const box = boxes[Number(url.searchParams.get('box'))]
    if (!box) return reply(res, 404, { error: 'no such box' })
    try {
      if (req.method === 'POST' && url.pathname === '/stop') await box.stop()
      else if (req.method === 'POST' && url.pathname === '/start') await box.start()
      else if (req.method === 'GET' && url.pathname === '/dig') {
        return reply(
          res,
          200,
          box.dig(url.searchParams.get('name') ?? '', url.searchParams.get('type') ?? 'A'),
        )
      } else return reply(res, 404, { error: 'unknown control call' })
      reply(res, 200, { ok: true })
    } catch (error) {
      reply(res, 500, { error: String(error) })
    }
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  assertToolsInstalled()
  const root = mkdtempSync(join(tmpdir(), 'panel-peers-'))
  const boxes: PowerDnsProcess[] = []
  const server = createServer((req, res) => {
    void control(boxes)(req, res)
  })
  const teardown = async () => {
    await Promise.all(boxes.map((box) => box.stop()))
    await new Promise<void>((resolve) => server.close(() => resolve()))
    rmSync(root, { recursive: true, force: true })
  }
  try {
    for (const index of [0, 1]) {
      const box = new PowerDnsProcess(root, index, await freePort(), await freePort())
      boxes.push(box)
      await box.start()
    }
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  } catch (error) {
    await teardown()
    throw error
  }
  const { port } = server.address() as AddressInfo
  project.provide('peers', { boxes: boxes.map((box) => box.box), control: `http://127.0.0.1:${port}` })
  return teardown
}

declare module 'vitest' {
  export interface ProvidedContext {
    peers: { boxes: import('./powerdns-boxes').PeerBox[]; control: string }
  }
}
