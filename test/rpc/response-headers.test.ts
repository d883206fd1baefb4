import { describe, expect, it } from 'vitest'
import { ResponseHeaders } from '../../src/rpc/response-headers'

describe('ResponseHeaders', () => {
  it('should replace every earlier value of a name on set, whatever its case', () => {
    const headers = new ResponseHeaders()
    headers.append('Set-Cookie', 'a=1')
    headers.set('cache-control', 'no-store')
    headers.set('Cache-Control', 'public, max-age=55')
    expect(headers.entries()).toEqual([
      ['set-cookie', 'a=1'],
      ['cache-control', 'public, max-age=55'],
    ])
  })

  it('should keep every appended value, in order', () => {
    const headers = new ResponseHeaders()
    headers.append('set-cookie', 'a=1')
    headers.append('set-cookie', 'b=2')
    expect(headers.entries()).toEqual([
      ['set-cookie', 'a=1'],
      ['set-cookie', 'b=2'],
    ])
  })
})
