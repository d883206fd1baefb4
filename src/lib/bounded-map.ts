/** A Map that keeps at most `max` entries: setting a key when full drops the oldest set one first. */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly max: number) {
    super()
  }

  override set(key: K, value: V): this {
    this.delete(key)
    if (this.size >= this.max) {
      const oldest = this.keys().next().value
      if (oldest !== undefined) this.delete(oldest)
    }
    return super.set(key, value)
  }
}
