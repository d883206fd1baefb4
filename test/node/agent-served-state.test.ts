import { describe, expect, it } from 'vitest'
import { ServedState } from '../../node-agent/served-state.ts'
import type { EdgeState, Vhost } from '../../src/agent-contract/v1.ts'

// The served state's diff and change: a whole state costs one lookup per entry and changes only what differs;
// a change can be undone exactly (Caddy refused it); the groups Caddy is given stay sorted per upstream.
const vhost = (hostname: string, upstream = '10.0.0.5:80'): Vhost => ({
  hostname,
  upstream,
  issuer: 'letsencrypt',
})
const many = Array.from({ length: 500 }, (_, i) => vhost(`h${String(i).padStart(3, '0')}.example.com`))
const state: EdgeState = {
  configVersion: 1,
  vhosts: [...many, vhost('other.example.com', '10.0.0.6:80')],
  forwards: [{ listenPort: 2222, proto: 'tcp', upstream: '10.0.0.5:22' }],
}
const names = (edge: EdgeState) => new Set(edge.vhosts.map((entry) => entry.hostname))

function served(): ServedState {
  const served = new ServedState(null)
  served.change(served.diff(state, names(state)), state.configVersion)
  return served
}

describe('ServedState', () => {
  it('should diff a whole state differing by one entry into that entry alone', () => {
    const current = served()
    const added: EdgeState = {
      ...state,
      configVersion: 2,
      vhosts: [...state.vhosts, vhost('new.example.com')],
    }
    expect(current.diff(added, names(added))).toEqual({
      vhosts: [vhost('new.example.com')],
      removeHostnames: [],
      forwards: [],
      removeForwards: [],
    })
    const moved: EdgeState = {
      configVersion: 2,
      vhosts: [...many.slice(1), vhost('other.example.com', '10.0.0.7:80')],
      forwards: [],
    }
    expect(current.diff(moved, names(moved))).toEqual({
      vhosts: [vhost('other.example.com', '10.0.0.7:80')],
      removeHostnames: ['h000.example.com'],
      forwards: [],
      removeForwards: [{ listenPort: 2222, proto: 'tcp' }],
    })
    expect(current.diff(state, names(state))).toEqual({
      vhosts: [],
      removeHostnames: [],
      forwards: [],
      removeForwards: [],
    })
  })

  it('should change the groups and lookups, and undo the change exactly', () => {
    const current = served()
    const before = JSON.stringify([...current.groups])
    const { undo, version } = current.change(
      {
        vhosts: [
          vhost('a-new.example.com'),
          vhost('h001.example.com', '10.0.0.6:80'),
          vhost('bad', '10.0.0.5:80'),
        ],
        removeHostnames: ['h002.example.com', 'not-served.example.com'],
        forwards: [],
        removeForwards: [],
      },
      2,
    )
    const group = current.groups.get('10.0.0.5:80') ?? []
    expect(group[0]).toBe('a-new.example.com')
    expect(group).toHaveLength(499)
    expect(group).toEqual([...group].sort())
    expect(current.groups.get('10.0.0.6:80')).toEqual(['h001.example.com', 'other.example.com'])
    expect(current.vhost('h002.example.com')).toBeUndefined()
    expect(current.vhost('bad')).toBeUndefined()
    expect(current.failedVhosts).toEqual([
      { kind: 'vhost', hostname: 'bad', error: 'the hostname must be a lowercase DNS name (punycode)' },
    ])
    current.change(undo, version)
    expect(current.version).toBe(1)
    expect(JSON.stringify([...current.groups])).toBe(before)
    expect(current.failedVhosts).toEqual([])
    expect(current.vhost('h002.example.com')).toEqual(vhost('h002.example.com'))
  })
})
