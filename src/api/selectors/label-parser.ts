/**
 * The label selector string grammar of k8s.io/apimachinery/pkg/labels (Parse), reproduced with its
 * lexer quirks and error texts:
 *   selector    ::= requirement | requirement "," selector
 *   requirement ::= ["!"] KEY [ ("in"|"notin") "(" VALUES ")" | ("="|"=="|"!="|">"|"<") VALUE ]
 * Whitespace separates tokens; `in`/`notin` are keywords only where an operator is expected.
 */
import { type LabelOperator, type LabelRequirement, compareGoStrings, newLabelRequirement } from './label-requirement';
import { invalidValue, labelKeyErrors } from './label-syntax';

type Tok = 'end' | ')' | ',' | '!' | '==' | '=' | '>' | 'in' | '<' | '!=' | 'notin' | '(' | 'id';
interface Item {
  tok: Tok;
  lit: string;
}

const symbols = new Set<string>([')', ',', '!', '==', '=', '>', '<', '!=', '(']);
const keywords = new Set<string>(['in', 'notin']);

function isWhitespace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
}
function isSpecial(ch: string): boolean {
  return '=!(),<>'.includes(ch);
}

/** splits the text into tokens; a NUL character ends the input, as kube's byte lexer treats 0 */
function scan(text: string): Item[] {
  const end = text.indexOf('\0');
  const s = end >= 0 ? text.slice(0, end) : text;
  const items: Item[] = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isWhitespace(s[pos])) pos++;
    if (pos >= s.length) {
      items.push({ tok: 'end', lit: '' });
      return items;
    }
    if (isSpecial(s[pos])) {
      // longest run of special characters that still forms a known symbol ("!=" over "!")
      let buf = '';
      let last: string | undefined;
      while (pos < s.length && isSpecial(s[pos])) {
        buf += s[pos];
        if (symbols.has(buf)) {
          last = buf;
          pos++;
        } else if (last !== undefined) {
          break;
        } else {
          pos++;
        }
      }
      // every single special character is a symbol, so `last` is always set here
      items.push({ tok: last as Tok, lit: last! });
      continue;
    }
    const start = pos;
    while (pos < s.length && !isSpecial(s[pos]) && !isWhitespace(s[pos])) pos++;
    const word = s.slice(start, pos);
    items.push({ tok: keywords.has(word) ? (word as Tok) : 'id', lit: word });
  }
}

class ParseError extends Error {}

const binaryOperators = 'in, notin, =, ==, !=, gt, lt';

class Parser {
  #items: Item[];
  #pos = 0;

  constructor(text: string) {
    this.#items = scan(text);
  }

  /** in value position the keywords are plain identifiers */
  #peek(asValue: boolean): Item {
    return this.#asContext(this.#items[this.#pos], asValue);
  }
  #next(asValue: boolean): Item {
    return this.#asContext(this.#items[this.#pos++], asValue);
  }
  #asContext(item: Item, asValue: boolean): Item {
    return asValue && (item.tok === 'in' || item.tok === 'notin') ? { tok: 'id', lit: item.lit } : item;
  }

  parse(): LabelRequirement[] {
    const out: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.#peek(true);
      if (tok === 'end') return out;
      if (tok !== 'id' && tok !== '!') throw new ParseError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      try {
        out.push(this.#requirement());
      } catch (err) {
        if (err instanceof ParseError) throw new ParseError(`unable to parse requirement: ${err.message}`);
        throw err;
      }
      const after = this.#next(true);
      if (after.tok === 'end') return out;
      if (after.tok !== ',') throw new ParseError(`found '${after.lit}', expected: ',' or 'end of string'`);
      const following = this.#peek(true);
      if (following.tok !== 'id' && following.tok !== '!') throw new ParseError(`found '${following.lit}', expected: identifier after ','`);
    }
  }

  #requirement(): LabelRequirement {
    let unary: LabelOperator | undefined;
    let item = this.#next(true);
    if (item.tok === '!') {
      unary = '!';
      item = this.#next(true);
    }
    if (item.tok !== 'id') throw new ParseError(`found '${item.lit}', expected: identifier`);
    const key = item.lit;
    const keyErrs = labelKeyErrors(key);
    // kube validates the key here with a nil field path, which prints as "<nil>"
    if (keyErrs.length) throw new ParseError(invalidValue('<nil>', key, keyErrs.join('; ')));
    const ahead = this.#peek(true).tok;
    if (unary === undefined && (ahead === 'end' || ahead === ',')) unary = 'exists';
    if (unary !== undefined) return this.#build(key, unary, []);

    const op = this.#operator();
    const values = op === 'in' || op === 'notin' ? this.#setValues() : this.#exactValue();
    // kube collects values in a string set: sorted, without duplicates
    return this.#build(key, op, [...new Set(values)].sort(compareGoStrings));
  }

  #build(key: string, op: LabelOperator, values: string[]): LabelRequirement {
    const r = newLabelRequirement(key, op, values);
    if ('error' in r) throw new ParseError(r.error);
    return r;
  }

  #operator(): LabelOperator {
    const { tok, lit } = this.#next(false);
    switch (tok) {
      case 'in':
      case 'notin':
      case '=':
      case '==':
      case '!=':
        return tok;
      case '>':
        return 'gt';
      case '<':
        return 'lt';
      default:
        throw new ParseError(`found '${lit}', expected: ${binaryOperators}`);
    }
  }

  #setValues(): string[] {
    const open = this.#next(true);
    if (open.tok !== '(') throw new ParseError(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.#peek(true);
    if (tok === ')') {
      this.#pos++;
      return [''];
    }
    if (tok !== 'id' && tok !== ',') throw new ParseError(`found '${lit}', expected: ',', ')' or identifier`);
    const values = this.#identifierList();
    // kube reports the token seen before the list here, not the offending one
    if (this.#next(true).tok !== ')') throw new ParseError(`found '${lit}', expected: ')'`);
    return values;
  }

  /** a comma-separated list in which empty entries are the empty string: `(a,,b)`, `(,)` */
  #identifierList(): string[] {
    const values: string[] = [];
    for (;;) {
      const { tok, lit } = this.#next(true);
      if (tok === 'id') {
        values.push(lit);
        const ahead = this.#peek(true);
        if (ahead.tok === ',') continue;
        if (ahead.tok === ')') return values;
        throw new ParseError(`found '${ahead.lit}', expected: ',' or ')'`);
      } else if (tok === ',') {
        if (values.length === 0) values.push('');
        const ahead = this.#peek(true).tok;
        if (ahead === ')') {
          values.push('');
          return values;
        }
        if (ahead === ',') values.push('');
      } else {
        throw new ParseError(`found '${lit}', expected: ',', or identifier`);
      }
    }
  }

  #exactValue(): string[] {
    const ahead = this.#peek(true).tok;
    if (ahead === 'end' || ahead === ',') return [''];
    const { tok, lit } = this.#next(true);
    if (tok === 'id') return [lit];
    throw new ParseError(`found '${lit}', expected: identifier`);
  }
}

/** parses kube's label selector syntax; throws Error(message) with kube's text on bad input */
export function parseLabelRequirements(text: string): LabelRequirement[] {
  try {
    return new Parser(text).parse();
  } catch (err) {
    if (err instanceof ParseError) throw new Error(err.message);
    throw err;
  }
}
