/** HMAC-SHA256 over `<timestamp>.<body>` written here, apart from the panel's signer, with WebCrypto directly. */
export async function independentSignature(secret: string, timestamp: string, body: string): Promise<string> {
  const encoder = new TextEncoder()
  const key = await crypto.subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  )
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(`${timestamp}.${body}`)))
  return `sha256=${Array.from(mac, (b) => b.toString(16).padStart(2, '0')).join('')}`
}
