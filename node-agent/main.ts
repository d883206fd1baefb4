import { CONTRACT_VERSION } from '../src/agent-contract/v1.ts'
import { type AgentConfig, readConfig } from './config.ts'
import { AGENT_VERSION } from './edge-agent.ts'
import { startAgent } from './start.ts'

// The agent's entry point: `node node-agent/dist/agent.mjs --flag value` (the bundle `npm run build:agent`
// makes) or, from the repository, `npm run agent -- --flag value`. See docs/node-agent.md.
let config: AgentConfig
try {
  config = readConfig(process.argv.slice(2), process.env)
} catch (error) {
  console.error(`hosting-panel agent: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(2)
}
const running = await startAgent(config)
console.log(
  `hosting-panel agent ${AGENT_VERSION}: contract ${CONTRACT_VERSION} on ${running.url}, ask gate on ${running.askUrl}`,
)
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    )
  })
}
