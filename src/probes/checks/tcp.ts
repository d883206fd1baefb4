import type { Env } from '../../env'
import type { TcpConfig } from '../config'
import { hangUp, openConnection } from './connection'
import { startDeadline } from './deadline'
import { parseHostPort } from './target'
import { down, type Verdict } from './verdict'

/** Up when `host:port` accepts a TCP connection within the timeout; the connection is closed at once. */
export async function checkTcp(env: Env, target: string, config: TcpConfig): Promise<Verdict> {
  const address = parseHostPort(target)
  if (!address) return down(`the target ${target} is not host:port`)
  const deadline = startDeadline(config.timeoutMs)
  try {
    const connection = await openConnection(env, address, deadline)
    if ('problem' in connection) return down(connection.problem)
    hangUp(connection.socket)
    return { outcome: 'up', latencyMs: connection.latencyMs, detail: 'connected' }
  } finally {
    deadline.cancel()
  }
}
