import { fromBase64Url, toBase64Url, toHex } from './encoding'

/** The keys stored secrets are sealed with: SECRETS_KEY seals, SECRETS_KEY_PREVIOUS still opens during a rotation. */
export interface SecretKeys {
  SECRETS_KEY: string
  SECRETS_KEY_PREVIOUS?: string
}

interface LoadedKey {
  id: string
  key: CryptoKey
}

const cache = new Map<string, Promise<LoadedKey>>()
const encoder = new TextEncoder()
const decoder = new TextDecoder()

function loadKey(material: string): Promise<LoadedKey> {
  let loaded = cache.get(material)
  if (!loaded) {
    loaded = (async () => {
      const raw = fromBase64Url(material.trim())
      if (raw.length !== 32) throw new Error('SECRETS_KEY must be 32 bytes, base64 encoded')
      const id = toHex(await crypto.subtle.digest('SHA-256', raw)).slice(0, 8)
      const key = await crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt'])
      return { id, key }
    })()
    cache.set(material, loaded)
  }
  return loaded
}

/** Seals a secret as `v1.<keyId>.<iv>.<ciphertext>` (AES-256-GCM, base64url parts). */
export async function sealSecret(keys: SecretKeys, plaintext: string): Promise<string> {
  const { id, key } = await loadKey(keys.SECRETS_KEY)
  const iv = crypto.getRandomValues(new Uint8Array(12))
  const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, encoder.encode(plaintext))
  return `v1.${id}.${toBase64Url(iv)}.${toBase64Url(new Uint8Array(sealed))}`
}

/** Opens a sealed secret with whichever configured key its key id names. */
export async function openSecret(keys: SecretKeys, sealed: string): Promise<string> {
  const [version, keyId, iv, ciphertext] = sealed.split('.')
  if (version !== 'v1' || !keyId || !iv || !ciphertext) throw new Error('unrecognised sealed secret')
  const candidates = [keys.SECRETS_KEY, keys.SECRETS_KEY_PREVIOUS].filter((k): k is string => Boolean(k))
  for (const material of candidates) {
    const { id, key } = await loadKey(material)
    if (id !== keyId) continue
    const plain = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: fromBase64Url(iv) },
      key,
      fromBase64Url(ciphertext),
    )
    return decoder.decode(plain)
  }
  throw new Error(`no configured key has id ${keyId}`)
}
