/**
 * A value computed on first use. The API server loads libraries that only some configurations use
 * (gRPC for KMS, X.509 generation, cron parsing, RE2 patterns...) through this, so that every start
 * does not pay for compiling them: about a third of the JavaScript a start loaded was such code.
 */
export function lazy<T>(load: () => T): () => T {
  let loaded = false;
  let value: T;
  return () => {
    if (!loaded) {
      value = load();
      loaded = true;
    }
    return value;
  };
}
