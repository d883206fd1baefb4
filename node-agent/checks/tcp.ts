import { connect } from 'node:net'
import { down, type Verdict } from '../../src/probes/checks/verdict.ts'
import { checkAddress, errorText } from './target.ts'

/** Up when `host:port` accepts a TCP connection within the timeout, from this node; the connection is closed at once. */
export function checkTcp(target: string, timeoutMs: number): Promise<Verdict> {
  const address = checkAddress(target)
  if (!address) return Promise.resolve(down(`the target ${target} is not host:port`))
  return new Promise((resolve) => {
    const started = Date.now()
    const socket = connect({ host: address.host, port: address.port })
    const done = (verdict: Verdict) => {
      clearTimeout(timer)
      socket.destroy()
      resolve(verdict)
    }
    const timer = setTimeout(() => done(down(`connect timed out after ${timeoutMs} ms`)), timeoutMs)
    socket.once('connect', () =>
      done({ outcome: 'up', latencyMs: Date.now() - started, detail: 'connected' }),
    )
    socket.once('error', (error) => done(down(`could not connect: ${errorText(error)}`)))
  })
}
