/**
 * A bounded memo of a pure function of one key: when it holds `limit` entries it starts over,
 * which costs less on a hot path than least-recently-used bookkeeping and is as good where the keys
 * in use at a time are few (flows, path elements, patterns). `compute` never returns undefined.
 */
export function boundedMemo<K, V>(limit: number, compute: (key: K) => V): (key: K) => V {
  const memo = new Map<K, V>();
  return (key) => {
    let value = memo.get(key);
    if (value === undefined) {
      value = compute(key);
      if (memo.size >= limit) memo.clear();
      memo.set(key, value);
    }
    return value;
  };
}
