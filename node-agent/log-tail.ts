import { open, stat } from 'node:fs/promises'

// Follows a log file Caddy appends to and rolls (its `file` writer renames a full file and starts a new one):
// each read hands on the whole lines written since the last read. A new file (another inode, or shorter than
// what was read) is read from its start, so lines written between the last read and a roll are the only ones
// missed.

const MAX_READ_BYTES = 4 * 1024 * 1024
// A line longer than this (none of Caddy's tls lines comes near it) is dropped rather than held in memory.
const MAX_LINE_BYTES = 64 * 1024

export class LogTail {
  readonly #path: string
  #inode: number | null = null
  #offset = 0
  #partial = ''

  constructor(path: string) {
    this.#path = path
  }

  /** The whole lines appended since the last read (at most about 4 MiB of them); none while there is no file. */
  async read(): Promise<string[]> {
    const info = await stat(this.#path).catch(() => null)
    if (!info) return []
    if (info.ino !== this.#inode || info.size < this.#offset) {
      this.#inode = info.ino
      this.#offset = 0
      this.#partial = ''
    }
    const length = Math.min(info.size - this.#offset, MAX_READ_BYTES)
    if (length <= 0) return []
    const file = await open(this.#path, 'r')
    try {
      const buffer = Buffer.alloc(length)
      const { bytesRead } = await file.read(buffer, 0, length, this.#offset)
      this.#offset += bytesRead
      const lines = (this.#partial + buffer.subarray(0, bytesRead).toString('utf8')).split('\n')
      const rest = lines.pop() ?? ''
      this.#partial = rest.length > MAX_LINE_BYTES ? '' : rest
      return lines.filter((line) => line !== '')
    } finally {
      await file.close()
    }
  }
}
