/**
 * The headers a handler adds to its answer, kept as plain pairs until the answer is made: a `Headers` object built
 * and walked on every call cost a cached GET (the feed) measurably more than the rest of its answer.
 */
export class ResponseHeaders {
  private pairs: [name: string, value: string][] = []

  /** Replaces every value of `name` this handler set before. */
  set(name: string, value: string): void {
    const lower = name.toLowerCase()
    this.pairs = this.pairs.filter(([existing]) => existing !== lower)
    this.pairs.push([lower, value])
  }

  /** Adds a value of `name` beside the ones set before (as `set-cookie` needs). */
  append(name: string, value: string): void {
    this.pairs.push([name.toLowerCase(), value])
  }

  entries(): readonly (readonly [string, string])[] {
    return this.pairs
  }
}
