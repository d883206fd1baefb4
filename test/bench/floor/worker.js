// The Durable Object floor of `npm run bench`: a bare Worker with no framework, whose only work is the one
// Durable Object call a heartbeat ping must make. Its ratios say what this machine's runtime charges for that call
// alone, whatever the panel does around it.
import { DurableObject } from 'cloudflare:workers'

export class Shard extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env)
    ctx.storage.sql.exec(
      'CREATE TABLE IF NOT EXISTS pings (seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER)',
    )
  }

  async nothing() {
    return 'recorded'
  }

  async record(at) {
    this.ctx.storage.sql.exec('INSERT INTO pings (at) VALUES (?)', at)
    return 'recorded'
  }
}

let next = 0

export default {
  async fetch(request, env) {
    const { pathname } = new URL(request.url)
    if (pathname === '/noop') return new Response('ok')
    // Spread over 16 objects, as the heartbeat ledger's shards are.
    const shard = env.SHARD.getByName(`shard-${next++ % 16}`)
    if (pathname === '/do-call') return new Response(await shard.nothing())
    if (pathname === '/do-write') return new Response(await shard.record(Date.now()))
    return new Response('not found', { status: 404 })
  },
}
