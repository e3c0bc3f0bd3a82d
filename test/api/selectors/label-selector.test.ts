import t from 'tap';
import { ApiError } from '../../../src/api/errors';
import { LabelSelector, formatLabelSelector, labelSelectorFromObject, parseLabelSelector } from '../../../src/api/selectors/label-selector';

function parseError(text: string): ApiError {
  try {
    parseLabelSelector(text);
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error(`expected ${JSON.stringify(text)} to fail`);
}

t.test('every operator parses into requirements sorted by key', async (t) => {
  const sel = parseLabelSelector('z=1,y==2,x!=3,w in (b,a),v notin (c),u,!t,s>4,r<5');
  t.same(
    sel.requirements.map((r) => [r.key, r.operator, [...r.values]]),
    [
      ['r', 'lt', ['5']],
      ['s', 'gt', ['4']],
      ['t', '!', []],
      ['u', 'exists', []],
      ['v', 'notin', ['c']],
      ['w', 'in', ['a', 'b']],
      ['x', '!=', ['3']],
      ['y', '==', ['2']],
      ['z', '=', ['1']],
    ],
  );
  t.equal(sel.toString(), 'r<5,s>4,!t,u,v notin (c),w in (a,b),x!=3,y==2,z=1');
});

t.test('canonical string form: kube selector_test good strings round-trip without spaces', async (t) => {
  for (const s of ['x=a,y=b,z=c', '', 'x!=a,y=b', 'x=', 'x= ', 'x=,z= ', 'x= ,z= ', '!x', 'x>1', 'x>1,z<5']) {
    t.equal(parseLabelSelector(s).toString(), s.replace(/ /g, ''), s);
  }
  t.equal(parseLabelSelector('x=a,a=x').toString(), parseLabelSelector('a=x,x=a').toString());
  t.equal(parseLabelSelector('tier in (b,a,b),app=web').toString(), 'app=web,tier in (a,b)');
});

t.test('whitespace, tabs and newlines separate tokens', async (t) => {
  const sel = parseLabelSelector('  app = web ,\ttier\nin ( a , b )  ');
  t.equal(sel.toString(), 'app=web,tier in (a,b)');
});

t.test('in and notin are identifiers where a key or value is expected', async (t) => {
  const sel = parseLabelSelector('notin=in');
  t.ok(sel.matches({ notin: 'in' }));
  t.equal(parseLabelSelector('x in (in,notin)').toString(), 'x in (in,notin)');
});

t.test('empty values inside sets', async (t) => {
  t.same([...parseLabelSelector('x in (foo,,baz)').requirements[0].values], ['', 'baz', 'foo']);
  t.same([...parseLabelSelector('x in ()').requirements[0].values], ['']);
  t.same([...parseLabelSelector('x in (,)').requirements[0].values], ['']);
  t.same([...parseLabelSelector('x notin (a,)').requirements[0].values], ['', 'a']);
  t.equal(parseLabelSelector('x in (foo,,baz),y,z notin ()').toString(), 'x in (,baz,foo),y,z notin ()');
});

t.test('matching follows kube Requirement.Matches', async (t) => {
  const cases: Array<[string, Record<string, string> | undefined, boolean]> = [
    ['', { x: 'y' }, true],
    ['', undefined, true],
    ['x=y', { x: 'y' }, true],
    ['x=y', { x: 'z' }, false],
    ['x=z', {}, false],
    ['x!=y,z!=w', { x: 'z', z: 'a' }, true],
    ['x!=y,z!=w', { x: 'z', z: 'w' }, false],
    ['x!=y', undefined, true],
    ['x notin (a)', {}, true],
    ['x in (a,b)', { x: 'b' }, true],
    ['x in (a,b)', { x: 'c' }, false],
    ['x', { x: '' }, true],
    ['x', { y: 'z' }, false],
    ['!x', { y: 'z' }, true],
    ['!x', { x: 'z' }, false],
    ['x>1', { x: '2' }, true],
    ['x>1', { x: '0' }, false],
    ['x>1', { x: 'abc' }, false],
    ['x<1', { x: '0' }, true],
    ['x<1', { x: '-5' }, true],
    ['x<1', {}, false],
    ['x=', { x: '' }, true],
    ['toString=1', {}, false],
  ];
  for (const [text, labels, want] of cases) t.equal(parseLabelSelector(text).matches(labels), want, `${text} on ${JSON.stringify(labels)}`);
});

t.test('syntax errors carry kube parser messages as 400 BadRequest', async (t) => {
  const cases: Array<[string, string]> = [
    ['x=a b', "found 'b', expected: ',' or 'end of string'"],
    ['x==a==b', "found '==', expected: ',' or 'end of string'"],
    ['!x=a', "found '=', expected: ',' or 'end of string'"],
    ['x=a,', "found '', expected: identifier after ','"],
    [',x', "found ',', expected: !, identifier, or 'end of string'"],
    ['x in a', "unable to parse requirement: found 'a' expected: '('"],
    ['x in (a', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['x in (a b)', "unable to parse requirement: found 'b', expected: ',' or ')'"],
    ['x in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['x foo y', "unable to parse requirement: found 'foo', expected: in, notin, =, ==, !=, gt, lt"],
    ['x=(', "unable to parse requirement: found '(', expected: identifier"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
  ];
  for (const [text, message] of cases) {
    const err = parseError(text);
    t.equal(err.code, 400, text);
    t.equal(err.status.reason, 'BadRequest', text);
    t.equal(err.message, message, text);
  }
});

t.test('invalid keys and values report kube validation messages', async (t) => {
  t.equal(
    parseError('-a=b').message,
    'unable to parse requirement: <nil>: Invalid value: "-a": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', ' +
      "and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', " +
      "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
  );
  t.equal(
    parseError('a=-b').message,
    'unable to parse requirement: values[0][a]: Invalid value: "-b": a valid label must be an empty string or consist of ' +
      "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or " +
      "'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
  );
  t.equal(
    parseError('x<a').message,
    'unable to parse requirement: values[0]: Invalid value: "a": for \'Gt\', \'Lt\' operators, the value must be an integer',
  );
  // '|' is not special to the lexer: it is part of the value
  t.ok(parseError('x=a||y=b').message.startsWith('unable to parse requirement: values[0][x]: Invalid value: "a||y": a valid label'));
  t.match(parseError(`a=${'v'.repeat(64)}`).message, /^unable to parse requirement: values\[0\]\[a\]: Invalid value: "v{64}": must be no more than 63 characters$/);
  t.match(parseError('Example.com/a').message, /<nil>: Invalid value: "Example.com\/a": prefix part a lowercase RFC 1123 subdomain/);
  t.match(parseError('a/b/c').message, /a qualified name must consist of .* with an optional DNS subdomain prefix and '\/'/);
  t.equal(parseLabelSelector('example.com/app=web').toString(), 'example.com/app=web');
});

t.test('requiresExactMatch', async (t) => {
  const sel = parseLabelSelector('app=web,tier in (a),x in (a,b),y!=z');
  t.equal(sel.requiresExactMatch('app'), 'web');
  t.equal(sel.requiresExactMatch('tier'), 'a');
  t.equal(sel.requiresExactMatch('x'), undefined);
  t.equal(sel.requiresExactMatch('y'), undefined);
  t.equal(sel.requiresExactMatch('missing'), undefined);
});

t.test('requirements are read-only', async (t) => {
  const sel = parseLabelSelector('a=b');
  t.throws(() => (sel.requirements as unknown as unknown[]).push({}));
  t.throws(() => {
    (sel.requirements[0] as { key: string }).key = 'c';
  });
  t.equal(sel.toString(), 'a=b');
});

t.test('labelSelectorFromObject: empty selects everything, null and undefined nothing', async (t) => {
  const everything = labelSelectorFromObject({});
  t.ok(everything.isEmpty());
  t.ok(everything.matches(undefined));
  t.equal(everything.toString(), '');
  t.ok(labelSelectorFromObject({ matchLabels: {}, matchExpressions: [] }).isEmpty());
  for (const none of [null, undefined]) {
    const sel = labelSelectorFromObject(none);
    t.notOk(sel.isEmpty());
    t.ok(sel.matchesNothing);
    t.notOk(sel.matches({ a: 'b' }));
    t.notOk(sel.matches(undefined));
    t.equal(sel.toString(), '');
  }
  t.ok(LabelSelector.everything().isEmpty());
});

t.test('labelSelectorFromObject: matchLabels and matchExpressions', async (t) => {
  const sel = labelSelectorFromObject({
    matchLabels: { tier: 'front', app: 'web' },
    matchExpressions: [
      { key: 'env', operator: 'In', values: ['prod', 'dev'] },
      { key: 'track', operator: 'NotIn', values: ['canary'] },
      { key: 'team', operator: 'Exists' },
      { key: 'legacy', operator: 'DoesNotExist', values: [] },
    ],
  });
  t.equal(sel.toString(), 'app=web,env in (dev,prod),!legacy,team,tier=front,track notin (canary)');
  t.ok(sel.matches({ app: 'web', tier: 'front', env: 'dev', team: 'x' }));
  t.notOk(sel.matches({ app: 'web', tier: 'front', env: 'dev', team: 'x', legacy: '1' }));
  t.notOk(sel.matches({ app: 'web', tier: 'front', env: 'qa', team: 'x' }));
  t.notOk(sel.matches({ app: 'web', tier: 'front', env: 'dev', team: 'x', track: 'canary' }));
});

t.test('labelSelectorFromObject: invalid input is a 400 with kube messages', async (t) => {
  const fail = (sel: Parameters<typeof labelSelectorFromObject>[0]): ApiError => {
    try {
      labelSelectorFromObject(sel);
    } catch (err) {
      if (err instanceof ApiError) return err;
    }
    throw new Error('expected an ApiError');
  };
  t.equal(fail({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }).message, '"Gt" is not a valid label selector operator');
  t.equal(fail({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }).message, "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty");
  t.equal(
    fail({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }).message,
    'values: Invalid value: ["x"]: values set must be empty for exists and does not exist',
  );
  const bad = fail({ matchLabels: { 'a b': 'c' } });
  t.equal(bad.code, 400);
  t.match(bad.message, /^key: Invalid value: "a b": name part must consist of/);
});

t.test('formatLabelSelector for table columns', async (t) => {
  t.equal(formatLabelSelector({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] }), 'app=web,tier in (a,b)');
  t.equal(formatLabelSelector({}), '<none>');
  t.equal(formatLabelSelector(undefined), '<none>');
  t.equal(formatLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Bad' }] }), '<error>');
});
