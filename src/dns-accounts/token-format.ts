import type { GitProvider, SslIssuerProvider } from './providers'

interface FormatRule {
  pattern: RegExp
  looksLike: string
  expected: string
  notSentTo: string
}

// An ACME issuer's "token" is the account's private key, whichever issuer it is for.
function acmeAccountKey(notSentTo: string): FormatRule {
  return {
    pattern:
      /^-----BEGIN (?:EC |RSA )?PRIVATE KEY-----[A-Za-z0-9+/=\s]+-----END (?:EC |RSA )?PRIVATE KEY-----$/,
    looksLike: 'a PEM private key (the ACME account key)',
    expected: 'a PEM block -----BEGIN PRIVATE KEY----- … -----END PRIVATE KEY-----',
    notSentTo,
  }
}

// Git and ssl-issuer accounts are checked offline: the token's shape is all `accounts.test` claims to know.
const RULES: Record<GitProvider | SslIssuerProvider, FormatRule> = {
  github: {
    pattern: /^(?:(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{22,255})$/,
    looksLike: 'a GitHub token',
    expected: 'ghp_… (classic) or github_pat_… (fine-grained)',
    notSentTo: 'GitHub',
  },
  gitlab: {
    pattern: /^glpat-[A-Za-z0-9_.-]{20,}$/,
    looksLike: 'a GitLab personal access token',
    expected: 'glpat-…',
    notSentTo: 'GitLab',
  },
  gitea: {
    pattern: /^[0-9a-f]{40}$/,
    looksLike: 'a Gitea access token',
    expected: '40 lowercase hexadecimal characters',
    notSentTo: 'the Gitea server',
  },
  letsencrypt: acmeAccountKey("Let's Encrypt"),
  pebble: acmeAccountKey('the pebble server'),
  zerossl: {
    pattern: /^[0-9a-f]{32}$/i,
    looksLike: 'a ZeroSSL API access key',
    expected: '32 hexadecimal characters',
    notSentTo: 'ZeroSSL',
  },
}

/** An offline check of a git or ssl-issuer token's shape; the detail says that nothing was sent anywhere. */
export function checkTokenFormat(
  provider: GitProvider | SslIssuerProvider,
  token: string,
): { ok: boolean; detail: string } {
  const rule = RULES[provider]
  const offline = `format check only; the token was not sent to ${rule.notSentTo}`
  if (rule.pattern.test(token)) return { ok: true, detail: `looks like ${rule.looksLike} (${offline})` }
  return { ok: false, detail: `does not look like ${rule.looksLike}: expected ${rule.expected} (${offline})` }
}
