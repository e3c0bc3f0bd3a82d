/**
 * kube's `$(VAR)` expansion (third_party/forked/golang/expansion): `$(NAME)` is replaced by the
 * mapping's value, `$$` is a literal `$`, an unknown or unterminated reference stays as written.
 */

/** the value of a reference; unknown names come back as `$(NAME)` */
export type Mapping = (name: string) => string;

export function expand(input: string, mapping: Mapping): string {
  let out = '';
  let checkpoint = 0;
  for (let cursor = 0; cursor < input.length; cursor++) {
    if (input[cursor] !== '$' || cursor + 1 >= input.length) continue;
    out += input.slice(checkpoint, cursor);
    const rest = input.slice(cursor + 1);
    let advance = 1;
    if (rest[0] === '$') {
      out += '$';
    } else if (rest[0] === '(') {
      const close = rest.indexOf(')', 1);
      if (close < 0) {
        out += '$(';
      } else {
        out += mapping(rest.slice(1, close));
        advance = close + 1;
      }
    } else {
      out += '$' + rest[0];
    }
    cursor += advance;
    checkpoint = cursor + 1;
  }
  return out + input.slice(checkpoint);
}

/** kube's MappingFuncFor: the first map holding the name wins; unknown names stay `$(NAME)` */
export function mappingFor(...contexts: ReadonlyMap<string, string>[]): Mapping {
  return (name) => {
    for (const vars of contexts) {
      const value = vars.get(name);
      if (value !== undefined) return value;
    }
    return `$(${name})`;
  };
}
