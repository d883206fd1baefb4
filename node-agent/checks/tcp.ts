import { connect } from 'node:net'
import { down, type Verdict } from '../../src/probes/checks/verdict.ts'
import type { Vet } from './destination.ts'
import { checkAddress, errorText } from './target.ts'

/**
 * Up when `host:port` accepts a TCP connection within the timeout, from this node; the connection (to the address
 * the rule vetted) is closed at once.
 */
export async function checkTcp(target: string, timeoutMs: number, vet: Vet): Promise<Verdict> {
  const address = checkAddress(target)
  if (!address) return down(`the target ${target} is not host:port`)
  const started = Date.now()
  const vetted = await vet(address.host, address.port, timeoutMs)
  if ('problem' in vetted) return down(vetted.problem)
  return new Promise((resolve) => {
    const socket = connect({ host: vetted.address, port: address.port })
    const done = (verdict: Verdict) => {
      clearTimeout(timer)
      socket.destroy()
      resolve(verdict)
    }
    const remaining = Math.max(0, timeoutMs - (Date.now() - started))
    const timer = setTimeout(() => done(down(`connect timed out after ${timeoutMs} ms`)), remaining)
    socket.once('connect', () =>
      done({ outcome: 'up', latencyMs: Date.now() - started, detail: 'connected' }),
    )
    socket.once('error', (error) => done(down(`could not connect: ${errorText(error)}`)))
  })
}
