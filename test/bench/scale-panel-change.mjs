// node test/bench/scale-panel-change.mjs: for a node serving 10 / 10,000 / 100,000 hostnames (BENCH_HOSTNAMES,
// comma-separated, to choose), the D1 rows the panel reads and the bytes it sends the node for one added and one
// removed hostname: the whole state (what every change cost before the delta contract, and what an agent before
// 0.4.0 still gets) against the changes alone. Runs scale-panel-change.bench-test.ts in workerd (the vitest
// integration, whose local D1 reports rows read per statement) and prints its figures as a table.
import { spawnSync } from 'node:child_process'
import path from 'node:path'

const root = path.join(import.meta.dirname, '../..')
const run = spawnSync(
  'npx',
  ['vitest', 'run', '--config', 'test/bench/scale-panel-change.config.ts', '--reporter', 'verbose'],
  { cwd: root, env: process.env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
)
const rows = `${run.stdout}\n${run.stderr}`.split('\n').flatMap((line) => {
  const at = line.indexOf('PANEL-CHANGE ')
  return at === -1 ? [] : [JSON.parse(line.slice(at + 'PANEL-CHANGE '.length))]
})
if (run.status !== 0 || rows.length === 0) {
  process.stderr.write(run.stdout + run.stderr)
  process.exit(1)
}
const format = (n) => n.toLocaleString('en-US')
console.log('| hostnames on the node | change | design | D1 rows read | bytes sent to the node | calls |')
console.log('|---:|---|---|---:|---:|---|')
for (const row of rows)
  console.log(
    `| ${format(row.hostnames)} | ${row.change} | ${row.design} | ${format(row.rowsRead)} | ${format(row.bytesSent)} | ${row.paths} |`,
  )
