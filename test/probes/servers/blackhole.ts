import { spawn } from 'node:child_process'
import { connect, type Socket } from 'node:net'

/** A loopback port whose connects never complete, and how to take it down. */
export interface Blackhole {
  port: number
  stop(): void
}

// A listener that never accepts: the child binds with a backlog of 1 (Node reads 0 as its default, 511), reports
// its port, then blocks its own event loop (Atomics.wait, no CPU) so libuv never calls accept(). Once connections
// fill the accept queue the kernel drops every further SYN, which is what a firewalled port looks like to a
// client. The child lives as long as this process (it wakes each second to see whether its parent is gone), at
// most LIFETIME_MS: a suite on a slow machine outlived a fixed ten minutes, and the port then refused instead.
const LIFETIME_MS = 2 * 60 * 60_000
const MAX_FILLERS = 8
const FILLED_AFTER_MS = 200
const CHILD = `
const server = require('node:net').createServer()
server.listen(0, '127.0.0.1', 1, () => {
  require('node:fs').writeSync(1, server.address().port + '\\n')
  const parent = process.ppid
  const end = Date.now() + ${LIFETIME_MS}
  const cell = new Int32Array(new SharedArrayBuffer(4))
  while (process.ppid === parent && Date.now() < end) Atomics.wait(cell, 0, 0, 1000)
  process.exit(0)
})
`

/** Starts the never-accepting listener and fills its accept queue. */
export async function startBlackhole(): Promise<Blackhole> {
  const child = spawn(process.execPath, ['-e', CHILD], { stdio: ['ignore', 'pipe', 'inherit'] })
  const fillers: Socket[] = []
  const stop = () => {
    for (const socket of fillers) socket.destroy()
    child.kill('SIGKILL')
  }
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('the blackhole listener did not start within 5 s')),
        5000,
      )
      child.stdout.once('data', (chunk: Buffer) => {
        clearTimeout(timer)
        resolve(Number(chunk.toString().trim()))
      })
      child.once('exit', () => reject(new Error('the blackhole listener exited early')))
    })
    // Connections complete into the accept queue until it is full; the first one that does not complete within
    // FILLED_AFTER_MS shows the kernel now drops SYNs (it keeps retrying until stopped).
    for (let i = 0; i < MAX_FILLERS; i++) {
      const filler = connect(port, '127.0.0.1')
      filler.on('error', () => {})
      fillers.push(filler)
      const completed = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), FILLED_AFTER_MS)
        filler.once('connect', () => {
          clearTimeout(timer)
          resolve(true)
        })
      })
      if (!completed) return { port, stop }
    }
    throw new Error(`the blackhole listener still accepted after ${MAX_FILLERS} connections`)
  } catch (error) {
    stop()
    throw error
  }
}
