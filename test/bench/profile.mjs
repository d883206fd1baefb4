// CPU profiles of workerd's internal workers (the local D1 simulation) while a bench target runs, read straight from
// workerd's own inspector (one target per internal worker), summarised as self time per function.
import { spawnSync } from 'node:child_process'

/** The inspector address of the workerd process that runs the Worker (a child of `wrangler dev`). */
export async function workerdInspector(devPid) {
  const listening = spawnSync('ss', ['-ltnpH'], { encoding: 'utf8' }).stdout
  const children = spawnSync('pgrep', ['-f', 'workerd serve'], { encoding: 'utf8' }).stdout.trim().split('\n')
  for (const line of listening.split('\n')) {
    const pid = line.match(/pid=(\d+)/)?.[1]
    const port = line.match(/127\.0\.0\.1:(\d+)/)?.[1]
    if (!pid || !port || !children.includes(pid) || !isDescendant(Number(pid), devPid)) continue
    try {
      const targets = await (
        await fetch(`http://127.0.0.1:${port}/json`, { signal: AbortSignal.timeout(1000) })
      ).json()
      if (Array.isArray(targets) && targets.some((t) => t.id?.startsWith('core:user:')))
        return { port, targets: targets.map((t) => t.id) }
    } catch {}
  }
  throw new Error('no workerd inspector found (is ss installed?)')
}

function isDescendant(pid, ancestor) {
  for (let current = pid; current > 1; ) {
    if (current === ancestor) return true
    const stat = spawnSync('ps', ['-o', 'ppid=', '-p', String(current)], { encoding: 'utf8' }).stdout.trim()
    current = Number(stat)
  }
  return false
}

function connect(url) {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url)
    let nextId = 1
    const waiting = new Map()
    socket.onmessage = (event) => {
      const message = JSON.parse(event.data)
      const done = waiting.get(message.id)
      if (!done) return
      waiting.delete(message.id)
      message.error ? done.reject(new Error(message.error.message)) : done.resolve(message.result)
    }
    socket.onerror = () => reject(new Error(`cannot open ${url}`))
    socket.onopen = () =>
      resolve({
        send(method, params = {}) {
          const id = nextId++
          socket.send(JSON.stringify({ id, method, params }))
          return new Promise((ok, fail) => waiting.set(id, { resolve: ok, reject: fail }))
        },
        close: () => socket.close(),
      })
  })
}

/** Runs `work` while sampling each inspector target in `ids`; answers each target's profile. */
export async function profileWhile({ port }, ids, work) {
  const sessions = await Promise.all(ids.map((id) => connect(`ws://127.0.0.1:${port}/${id}`)))
  for (const session of sessions) {
    await session.send('Profiler.enable')
    await session.send('Profiler.setSamplingInterval', { interval: 200 })
    await session.send('Profiler.start')
  }
  await work()
  const profiles = []
  for (const session of sessions) {
    profiles.push((await session.send('Profiler.stop')).profile)
    session.close()
  }
  return profiles
}

/** Self time per function (name, file and line), the biggest first, with the share of all sampled time. */
export function summarise(profile, top = 15) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const intervals = profile.timeDeltas
  const selfUs = new Map()
  let total = 0
  profile.samples.forEach((id, i) => {
    const delta = intervals[i + 1] ?? 0
    total += delta
    selfUs.set(id, (selfUs.get(id) ?? 0) + delta)
  })
  const byFunction = new Map()
  for (const [id, us] of selfUs) {
    const { callFrame } = byId.get(id)
    const file = callFrame.url.split('/').slice(-2).join('/')
    const key = `${callFrame.functionName || '(anonymous)'} ${file}:${callFrame.lineNumber + 1}`
    byFunction.set(key, (byFunction.get(key) ?? 0) + us)
  }
  const idle = byFunction.get('(idle) :0') ?? 0
  const rows = [...byFunction]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([key, us]) => `  ${((100 * us) / total).toFixed(1).padStart(5)}%  ${key}`)
  return `busy ${(100 - (100 * idle) / total).toFixed(0)}% of ${(total / 1e6).toFixed(1)} s sampled\n${rows.join('\n')}`
}
