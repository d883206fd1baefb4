import { describe, expect, it } from 'vitest'
import { buildFeed, toFeedRelease } from '../src/changelog/feed'
import { feedJsonOf, type MirroredRelease, planMirror } from '../src/changelog/mirror-plan'
import { plainTextProblem } from '../src/changelog/plain-text'
import { todayUtc } from '../src/changelog/releases'
import { compareSemver, isSemver } from '../src/changelog/semver'
import { outboundUrlProblem } from '../src/lib/outbound-url'
import { ifNoneMatchHits } from '../src/rpc/rendered'

describe('semver', () => {
  it('should follow the precedence example of semver.org', () => {
    const ordered = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.0.1',
      '1.1.0',
      '2.0.0',
    ]
    const shuffled = [...ordered].reverse()
    expect(shuffled.sort(compareSemver)).toEqual(ordered)
  })

  it('should compare numbers as numbers, not text', () => {
    expect(compareSemver('0.10.0', '0.9.0')).toBeGreaterThan(0)
    expect(compareSemver('0.9.0', '0.10.0')).toBeLessThan(0)
    expect(compareSemver('10.0.0', '9.99.99')).toBeGreaterThan(0)
    expect(compareSemver('1.0.0+build.1', '1.0.0+build.2')).toBe(0)
  })

  it('should accept only valid semver', () => {
    for (const valid of ['0.0.0', '1.2.3', '1.0.0-rc.1', '1.0.0+20260101', '1.0.0-x.7.z.92+meta']) {
      expect(isSemver(valid), valid).toBe(true)
    }
    for (const invalid of [
      '1',
      '1.2',
      'v1.2.3',
      '01.2.3',
      '1.2.3-01',
      '1.2.3-',
      '1.2.3+',
      ' 1.2.3',
      'latest',
    ]) {
      expect(isSemver(invalid), invalid).toBe(false)
    }
  })
})

describe('buildFeed', () => {
  const release = (version: string, date: string) =>
    toFeedRelease({ version, title: version, date, severity: 'patch', summary: null, items: [] }, [])

  it('should pick currentVersion by tag, else the newest, else null', () => {
    const releases = [
      release('0.9.0', '2026-01-01'),
      release('0.10.0', '2026-01-01'),
      release('0.8.0', '2026-02-01'),
    ]
    expect(buildFeed('0.9.0', releases).currentVersion).toBe('0.9.0')
    expect(buildFeed('latest', releases).currentVersion).toBe('0.8.0')
    expect(buildFeed('latest', []).currentVersion).toBeNull()
    expect(buildFeed('latest', releases).releases.map((r) => r.version)).toEqual(['0.8.0', '0.10.0', '0.9.0'])
  })

  it('should match the running tag only when it equals a version: a leading v names no release', () => {
    const releases = [release('0.9.0', '2026-01-01'), release('1.0.0', '2026-02-01')]
    expect(buildFeed('v0.9.0', releases).currentVersion).toBe('1.0.0')
    expect(buildFeed('0.9', releases).currentVersion).toBe('1.0.0')
  })

  it('should order versions that differ only in build metadata the same way whatever the input order', () => {
    const a = release('1.0.0+a', '2026-01-01')
    const b = release('1.0.0+b', '2026-01-01')
    const order = (releases: ReturnType<typeof release>[]) =>
      buildFeed('latest', releases).releases.map((r) => r.version)
    expect(order([a, b])).toEqual(order([b, a]))
    expect(order([a, b])).toEqual(['1.0.0+b', '1.0.0+a'])
  })

  it('should put languages in order so equal content serialises equally', () => {
    const base = {
      version: '1.0.0',
      title: 't',
      date: '2026-01-01',
      severity: 'patch' as const,
      summary: null,
      items: [],
    }
    const de = { lang: 'de', title: 'd', summary: null, items: [], machine: false }
    const fr = { lang: 'fr', title: 'f', summary: null, items: [], machine: true }
    expect(JSON.stringify(toFeedRelease(base, [fr, de]))).toBe(JSON.stringify(toFeedRelease(base, [de, fr])))
    expect(toFeedRelease(base, [])).not.toHaveProperty('i18n')
  })
})

describe('todayUtc', () => {
  it('should give the UTC calendar date of the instant, never the local one', () => {
    expect(todayUtc(new Date('2026-03-01T23:59:59.999Z'))).toBe('2026-03-01')
    expect(todayUtc(new Date('2026-03-02T00:00:00.000Z'))).toBe('2026-03-02')
    // 01:30 on 2 March at UTC+2 is still 1 March in UTC.
    expect(todayUtc(new Date('2026-03-02T01:30:00+02:00'))).toBe('2026-03-01')
    // 22:00 on 1 March at UTC-5 is already 2 March in UTC.
    expect(todayUtc(new Date('2026-03-01T22:00:00-05:00'))).toBe('2026-03-02')
  })
})

describe('plainTextProblem', () => {
  it('should pass prose and flag markup', () => {
    expect(plainTextProblem('Faster builds, C# support and 2 * 3 = 6; see https://example.com.')).toBeNull()
    expect(plainTextProblem('Use snake_case and a < b.')).toBeNull()
    expect(plainTextProblem('two\nlines')).toMatch(/line breaks/)
    expect(plainTextProblem('tab\there')).toMatch(/control/)
    expect(plainTextProblem('<script>x</script>')).toMatch(/HTML/)
    expect(plainTextProblem('[x](y)')).toMatch(/links/)
    expect(plainTextProblem('![img](y)')).toMatch(/links or images/)
    expect(plainTextProblem('_emphasis_ here')).toMatch(/emphasis/)
    expect(plainTextProblem('1. first')).toMatch(/list/)
  })
})

describe('outboundUrlProblem', () => {
  it('should allow loopback http in development only', () => {
    expect(outboundUrlProblem('http://127.0.0.1:8787/hook', false)).toBeNull()
    expect(outboundUrlProblem('http://localhost/hook', false)).toBeNull()
    expect(outboundUrlProblem('http://127.0.0.1:8787/hook', true)).toMatch(/https/)
    expect(outboundUrlProblem('https://127.0.0.1/hook', true)).toMatch(/loopback or private/)
    expect(outboundUrlProblem('https://hooks.example.com/x', true)).toBeNull()
    expect(outboundUrlProblem('https://8.8.8.8/x', true)).toBeNull()
    expect(outboundUrlProblem('https://[2606:4700::1111]/x', true)).toBeNull()
  })

  it('should see through alternative spellings of private addresses', () => {
    for (const url of [
      'https://0x7f.1/x',
      'https://2130706433/x',
      'https://[::ffff:10.0.0.1]/x',
      'https://0.0.0.0/x',
      'https://localhost./x',
      'https://[64:ff9b::7f00:1]/x',
      'https://[fec0::1]/x',
    ]) {
      expect(outboundUrlProblem(url, true), url).toMatch(/loopback or private/)
    }
    expect(outboundUrlProblem('file:///etc/passwd', false)).toMatch(/http or https/)
    expect(outboundUrlProblem('not a url', false)).toMatch(/absolute/)
  })
})

describe('ifNoneMatchHits', () => {
  it('should match strong and weak forms, lists and the wildcard', () => {
    expect(ifNoneMatchHits('"abc"', '"abc"')).toBe(true)
    expect(ifNoneMatchHits('W/"abc"', '"abc"')).toBe(true)
    expect(ifNoneMatchHits('"x", "abc"', '"abc"')).toBe(true)
    expect(ifNoneMatchHits('*', '"abc"')).toBe(true)
    expect(ifNoneMatchHits('"abcd"', '"abc"')).toBe(false)
    expect(ifNoneMatchHits(undefined, '"abc"')).toBe(false)
  })
})

describe('planMirror', () => {
  const mirrored = (version: string, title = version): MirroredRelease => ({
    release: { version, title, date: '2026-01-01', severity: 'patch', summary: null, items: [] },
    translations: [],
  })

  it('should add, rewrite, drop and skip', () => {
    const plan = planMirror(
      [mirrored('1.0.0'), mirrored('1.1.0', 'changed'), mirrored('2.0.0'), mirrored('3.0.0')],
      [
        { id: 'a', source: 'mirror', version: '1.0.0', feedJson: feedJsonOf(mirrored('1.0.0')) },
        { id: 'b', source: 'mirror', version: '1.1.0', feedJson: feedJsonOf(mirrored('1.1.0')) },
        { id: 'c', source: 'mirror', version: '0.9.0', feedJson: feedJsonOf(mirrored('0.9.0')) },
        { id: 'd', source: 'local', version: '2.0.0', feedJson: null },
      ],
    )
    expect(plan.insert.map((m) => m.release.version)).toEqual(['3.0.0'])
    expect(plan.update.map((u) => u.id)).toEqual(['b'])
    expect(plan.remove).toEqual(['c'])
    expect(plan.skipped).toEqual(['2.0.0'])
  })
})
