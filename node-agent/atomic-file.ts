import { mkdir, open, rename } from 'node:fs/promises'
import path from 'node:path'

/**
 * Writes `text` to `dir/name` atomically: a temporary file beside the old one, flushed to disk, renamed over it,
 * and the directory flushed, so a crash at any moment leaves either the old file or the new one, never a torn one.
 */
export async function writeFileAtomically(dir: string, name: string, text: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 })
  const target = path.join(dir, name)
  const temporary = `${target}.${process.pid}.tmp`
  const file = await open(temporary, 'w', 0o600)
  try {
    await file.writeFile(text)
    await file.sync()
  } finally {
    await file.close()
  }
  await rename(temporary, target)
  const directory = await open(dir, 'r')
  try {
    await directory.sync()
  } finally {
    await directory.close()
  }
}
