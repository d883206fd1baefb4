import { type AgentConfig, readConfig } from './config.ts'
import { startAgent } from './start.ts'

// `npm run agent -- --flag value`: see the README's "Running the reference node agent".
let config: AgentConfig
try {
  config = readConfig(process.argv.slice(2), process.env)
} catch (error) {
  console.error(`hosting-panel agent: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(2)
}
const running = await startAgent(config)
console.log(`hosting-panel agent: contract v1 on ${running.url}, ask gate on ${running.askUrl}`)
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    )
  })
}
