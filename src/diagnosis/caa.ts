import { DNS_RCODES, DohError, type DohResult, dohLookup } from '../outside/doh'
import { failsOnlyValidation } from './dnssec'
import type { Verdict } from './schema'

// Whether the node's CA may issue for a hostname, read as the CA reads CAA (RFC 8659 section 3): the CAA set at
// the name (the resolver following its CNAMEs), else at each parent up to the TLD; the first non-empty set is
// the relevant one. Judged as Let's Encrypt's Boulder does (va/caa.go): tags are case-insensitive, an unknown
// tag flagged critical (bit 128, or bit 1 which many publishers set by mistake) forbids every CA, and when the
// set holds issue properties, one of them must name the CA (an issue with no CA name forbids all).

export type NodeIssuer = 'pebble' | 'letsencrypt'

const CAS: Record<NodeIssuer, { label: string; identity: string }> = {
  letsencrypt: { label: "Let's Encrypt (letsencrypt.org)", identity: 'letsencrypt.org' },
  // pebble's own default (cmd/pebble/main.go, `CAAIdentities`, advertised as the directory's
  // meta.caaIdentities). Its VA checks no CAA, Debian's 2.4.0 included: a verdict for pebble is what a CA that
  // checks would do.
  pebble: { label: 'pebble (pebble.letsencrypt.org)', identity: 'pebble.letsencrypt.org' },
}

const KNOWN_TAGS = new Set(['issue', 'issuewild', 'iodef'])
const CRITICAL_FLAGS = 128 | 1
const MAX_ALIASES = 8
const NOERROR = 0
const SERVFAIL = 2
const NXDOMAIN = 3

interface CaaProperty {
  flags: number
  tag: string
  value: string
  text: string
}

/** One record as doh.ts presents it: `<flags> <tag> "<value>"`. */
function parseCaa(text: string): CaaProperty | null {
  const match = /^(\d+)\s+(\S+)\s+"((?:[^"\\]|\\.)*)"$/.exec(text.trim())
  if (!match) return null
  const [, flags = '0', tag = '', value = ''] = match
  return { flags: Number(flags), tag: tag.toLowerCase(), value: value.replace(/\\(.)/g, '$1'), text }
}

/** The CA an issue value names (RFC 8659 section 4.2: `[issuer-domain-name] [; parameters]`); '' for none. */
const issuerOf = (value: string) => (value.split(';')[0] ?? '').trim().toLowerCase()

/** The name, then each parent down to the TLD (never the root). */
function climb(hostname: string): string[] {
  const labels = hostname.toLowerCase().replace(/\.$/, '').split('.')
  return labels.map((_, i) => labels.slice(i).join('.'))
}

/** Where the records read at `name` live: the end of its CNAME chain (the name itself when it is no alias). */
async function aliasTarget(resolverUrl: string, name: string): Promise<string> {
  let current = name
  for (let hop = 0; hop < MAX_ALIASES; hop++) {
    const target = await dohLookup(resolverUrl, current, 'CNAME').then(
      (answer) => answer.data[0]?.replace(/\.$/, '').toLowerCase(),
      (error: unknown) => {
        if (error instanceof DohError) return undefined
        throw error
      },
    )
    if (!target) break
    current = target
  }
  return current
}

function unread(name: string, detail: string): Verdict {
  return { kind: 'resolver-failed', type: 'CAA', name, expected: null, observed: [], fixable: false, detail }
}

async function judge(
  resolverUrl: string,
  hostname: string,
  issuer: NodeIssuer,
  at: string,
  set: string[],
): Promise<Verdict[]> {
  const ca = CAS[issuer]
  const properties = set.flatMap((text) => parseCaa(text) ?? [])
  const criticalUnknown = properties.filter((p) => !KNOWN_TAGS.has(p.tag) && (p.flags & CRITICAL_FLAGS) !== 0)
  const issues = properties.filter((p) => p.tag === 'issue')
  const issueAllows = issues.length === 0 || issues.some((p) => issuerOf(p.value) === ca.identity)
  if (criticalUnknown.length === 0 && issueAllows) return []

  const owner = await aliasTarget(resolverUrl, at)
  const where = owner === at ? at : `${at} (an alias of ${owner}, which holds them)`
  const named = [...new Set(issues.map((p) => issuerOf(p.value)).filter(Boolean))]
  const allows = named.length > 0 ? `let only ${named.join(', ')}` : 'let no CA'
  const record = `0 issue "${ca.identity}"`
  const toAdd = `the CAA record ${owner} CAA ${record} beside them.`
  let detail: string
  if (criticalUnknown.length > 0) {
    const one = criticalUnknown.length === 1
    detail =
      `The CAA records at ${where} hold ${criticalUnknown.map((p) => p.text).join(', ')}, ` +
      `${one ? 'a critical property' : 'critical properties'} ${ca.label}, the CA the node uses, does not know, ` +
      `so it refuses to issue certificates for ${hostname}. ` +
      `Remove ${one ? 'that record, or set its flags' : 'those records, or set their flags'} to 0.`
    if (!issueAllows) detail += ` They also ${allows} issue: add ${toAdd}`
  } else {
    detail =
      `The CAA records at ${where} ${allows} issue certificates for ${hostname}, so ${ca.label}, ` +
      `the CA the node uses, refuses to. Add ${toAdd}`
  }
  return [
    {
      kind: 'caa-forbids',
      type: 'CAA',
      name: at,
      expected: null,
      observed: set,
      fixable: false,
      detail,
      ...(issueAllows ? {} : { add: { type: 'CAA' as const, name: owner, value: record } }),
    },
  ]
}

/**
 * At most one verdict: `caa-forbids` when the relevant CAA set keeps the node's CA from issuing for
 * `hostname` (naming the CA, where the set was found and, when an issue property is what forbids, the record
 * to add), or `resolver-failed` when a CAA lookup fails, which stops a CA too. A lookup that fails only
 * DNSSEC validation is left to dnssecVerdicts.
 */
export async function caaVerdicts(
  resolverUrl: string,
  hostname: string,
  issuer: NodeIssuer | (() => Promise<NodeIssuer>),
): Promise<Verdict[]> {
  const names = climb(hostname)
  let answers: DohResult[]
  try {
    answers = await Promise.all(names.map((name) => dohLookup(resolverUrl, name, 'CAA')))
  } catch (error) {
    if (!(error instanceof DohError)) throw error
    return [
      unread(
        hostname,
        `The CAA records of ${hostname} could not be read (${error.message}), and a CA does not issue while it cannot read them.`,
      ),
    ]
  }
  for (const [i, name] of names.entries()) {
    const answer = answers[i] ?? { status: NOERROR, data: [] }
    if (answer.status !== NOERROR && answer.status !== NXDOMAIN) {
      if (answer.status === SERVFAIL && (await failsOnlyValidation(resolverUrl, name, 'CAA'))) return []
      const rcode = DNS_RCODES[answer.status] ?? `response code ${answer.status}`
      return [
        unread(
          name,
          `The CAA lookup for ${name} fails (${rcode}), and a CA does not issue while it cannot read the CAA records. The nameservers of ${name} must answer CAA queries (an empty answer is fine).`,
        ),
      ]
    }
    // Which CA the node uses is asked only now: most names have no CAA set at all.
    if (answer.data.length > 0)
      return judge(
        resolverUrl,
        hostname,
        typeof issuer === 'function' ? await issuer() : issuer,
        name,
        answer.data,
      )
  }
  return []
}
