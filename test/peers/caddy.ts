import { type ChildProcess, spawn } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { stopProcess } from './stop-process'

// Caddy for the peers suite: unlike the agent harness's, it can be stopped and started again on the same admin
// port and storage, so a test can break the proxy under the agent and mend it.

/** `caddy run` with only its admin endpoint configured (the agent loads the rest); restartable. */
export class CaddyProcess {
  private child: ChildProcess | null = null
  private log = ''

  constructor(
    readonly dir: string,
    readonly adminPort: number,
  ) {
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'initial.json'), JSON.stringify({ admin: { listen: `127.0.0.1:${adminPort}` } }))
  }

  get adminUrl(): string {
    return `http://127.0.0.1:${this.adminPort}`
  }

  /** Starts Caddy and resolves once its admin API answers. */
  async start(): Promise<void> {
    if (this.child) return
    const child = spawn('caddy', ['run', '--config', join(this.dir, 'initial.json')], {
      env: {
        ...process.env,
        HOME: this.dir,
        XDG_DATA_HOME: join(this.dir, 'data'),
        XDG_CONFIG_HOME: join(this.dir, 'config'),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    this.child = child
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.log = (this.log + chunk).slice(-4000)
    })
    for (let attempt = 0; attempt < 100 && child.exitCode === null; attempt++) {
      const ready = await fetch(`${this.adminUrl}/config/`).then(
        (response) => response.ok,
        () => false,
      )
      if (ready) return
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    await this.stop()
    throw new Error(`caddy did not start:\n${this.log}`)
  }

  /** Kills Caddy and resolves once it has exited. */
  async stop(): Promise<void> {
    const child = this.child
    this.child = null
    await stopProcess(child)
  }
}
