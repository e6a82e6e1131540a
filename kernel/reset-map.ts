/**
 * A memo of a pure derivation (a key's base58 text, a PDA, a parsed public key): a Map that
 * forgets everything at once when a new key would take it past `limit` entries. What it holds can
 * always be made again, so forgetting costs only the work of making it; a clear is cheaper than
 * keeping recency on every hit of a path that hits thousands of times a second
 * (docs/operations.md#memory). Where what is held is worth keeping by recency, use `lru-cache`.
 *
 * @example
 *   const names = new ResetMap<string, string>(100_000);
 *   const name = names.getOrSet(id, () => base58.decode(bytes));
 */
export class ResetMap<K, V> extends Map<K, V> {
  constructor(readonly limit: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (this.size >= this.limit && !this.has(key)) this.clear();
    return super.set(key, value);
  }

  /** The value held for `key`, or the one `make` gives, kept. */
  getOrSet(key: K, make: (key: K) => V): V {
    let value = this.get(key);
    if (value === undefined) {
      value = make(key);
      this.set(key, value);
    }
    return value;
  }
}
