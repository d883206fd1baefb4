import { describe, expect, it } from 'vitest'
import { freePort, freePorts } from '../../node-agent/testing/harness.ts'

// The suites start real servers on ports chosen before they bind; the kernel re-offers a released port readily
// (500 plain bind-to-0 draws here repeated 16–24 ports), so one port must never be handed out twice.
describe('free ports for the suites', () => {
  it('should never hand out the same port twice in one process', async () => {
    const ports: number[] = []
    for (let draw = 0; draw < 250; draw++) ports.push(await freePort())
    ports.push(...(await freePorts(250)))
    expect(new Set(ports).size).toBe(ports.length)
    expect(ports.every((port) => port > 0)).toBe(true)
  })
})
