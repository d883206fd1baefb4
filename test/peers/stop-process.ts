import type { ChildProcess } from 'node:child_process'

/** Stops a child process — SIGTERM and SIGKILL after `graceMs`, or SIGKILL at once — and resolves once it exited. */
export async function stopProcess(child: ChildProcess | null, graceMs = 0): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill(graceMs > 0 ? 'SIGTERM' : 'SIGKILL')
  const timer = graceMs > 0 ? setTimeout(() => child.kill('SIGKILL'), graceMs) : undefined
  await exited
  clearTimeout(timer)
}
