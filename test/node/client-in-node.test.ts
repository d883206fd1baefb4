import { execFileSync } from 'node:child_process'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const entry = path.resolve(import.meta.dirname, '../../src/client/index.ts')

describe('client entry in plain Node', () => {
  it('should load without a bundler and call procedures through the given fetch', () => {
    const script = `
      const { createClient, isPanelError, PanelError, verifyServiceSignature, agentSignatureHeaders, verifyAgentSignature } =
        await import(${JSON.stringify(entry)})
      const client = createClient({
        baseUrl: 'https://panel.test/',
        token: 'pat_example',
        fetch: async (url, init) => url.endsWith('nodes.get')
          ? new Response(JSON.stringify({ code: 'not_found', detail: 'node x was not found', status: 404 }), { status: 404 })
          : new Response(JSON.stringify({ url, authorization: init.headers.authorization, body: init.body })),
      })
      const listed = await client.nodes.list()
      const failed = await client.nodes.get({ id: 'x' }).catch((e) => e)
      const call = { direction: 'panel-to-agent', method: 'POST', path: '/v2/health', body: '{}' }
      const signed = await agentSignatureHeaders('secret-0123456789', call)
      const agent = (await verifyAgentSignature('secret-0123456789', call, signed)).ok
      // A type guard called from plain JavaScript, with or without its procedure, answers and never throws.
      const guarded = [
        isPanelError(failed),
        isPanelError(new Error('x')),
        isPanelError(undefined),
        isPanelError(failed, client.nodes.get),
        isPanelError(failed, client.nodes.list),
        isPanelError(failed, null),
        isPanelError(failed, 'nodes.get'),
      ]
      console.log(JSON.stringify({ listed, failed: failed instanceof PanelError && failed.status, guarded, verifier: typeof verifyServiceSignature, agent }))
    `
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })
    expect(JSON.parse(out)).toEqual({
      listed: {
        url: 'https://panel.test/api/rpc/nodes.list',
        authorization: 'Bearer pat_example',
        body: '{}',
      },
      failed: 404,
      guarded: [true, false, false, true, false, false, false],
      verifier: 'function',
      agent: true,
    })
  })
})
