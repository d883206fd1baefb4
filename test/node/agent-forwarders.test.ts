import { createSocket } from 'node:dgram'
import { describe, expect, it } from 'vitest'
import { Forwarders } from '../../node-agent/forwarders.ts'

/** A UDP server on 127.0.0.1 that sends every datagram back to where it came from. */
function udpEcho(): Promise<{ port: number; close(): void }> {
  const socket = createSocket('udp4')
  socket.on('message', (message, from) => socket.send(message, from.port, from.address))
  return new Promise((resolve) => {
    socket.bind(0, '127.0.0.1', () => resolve({ port: socket.address().port, close: () => socket.close() }))
  })
}

function freeUdpPort(): Promise<number> {
  const socket = createSocket('udp4')
  return new Promise((resolve) => {
    socket.bind(0, '127.0.0.1', () => {
      const { port } = socket.address()
      socket.close(() => resolve(port))
    })
  })
}

/** Sends `text` to the port and answers the reply, or null when none came within `timeoutMs`. */
function roundTrip(port: number, text: string, timeoutMs = 2000): Promise<string | null> {
  const client = createSocket('udp4')
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      client.close()
      resolve(null)
    }, timeoutMs)
    client.on('message', (message) => {
      clearTimeout(timer)
      client.close()
      resolve(message.toString())
    })
    client.send(text, port, '127.0.0.1')
  })
}

describe('the UDP forward (proxy device)', () => {
  it('should relay a datagram and its answer, and stop after an apply without it', async () => {
    const echo = await udpEcho()
    const listenPort = await freeUdpPort()
    const forwarders = new Forwarders('127.0.0.1')
    try {
      await (
        await forwarders.prepare([{ listenPort, proto: 'udp', upstream: `127.0.0.1:${echo.port}` }])
      ).commit()
      expect(await roundTrip(listenPort, 'ping over udp')).toBe('ping over udp')
      await (await forwarders.prepare([])).commit()
      expect(await roundTrip(listenPort, 'after removal', 300)).toBeNull()
    } finally {
      await forwarders.close()
      echo.close()
    }
  })
})
