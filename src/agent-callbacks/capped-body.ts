import { AppError } from '../rpc/errors'

const tooLarge = (limit: number) =>
  new AppError('payload_too_large', `the request body exceeds ${limit} bytes`)

/**
 * The request body as text, read while it arrives and given up (413) as soon as more than `limit` bytes came:
 * an oversized body is never read to its end, whatever its Content-Length says.
 */
export async function readCappedBody(request: Request, limit: number): Promise<string> {
  if (Number(request.headers.get('content-length') ?? 0) > limit) throw tooLarge(limit)
  if (!request.body) return ''
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    size += read.value.byteLength
    if (size > limit) {
      await reader.cancel()
      throw tooLarge(limit)
    }
    chunks.push(read.value)
  }
  const body = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    body.set(chunk, offset)
    offset += chunk.byteLength
  }
  return new TextDecoder().decode(body)
}
