import t from 'tap';
import { createLogger, formatTextLine } from '../../src/server/logger';

t.test('json format writes one pino JSON object per line', async (t) => {
  const lines: string[] = [];
  const log = createLogger({ format: 'json', verbosity: 0, write: (l) => lines.push(l) });
  log.info({ port: 6443 }, 'serving');
  log.debug('hidden at -v 0');
  t.equal(lines.length, 1);
  const entry = JSON.parse(lines[0]) as { level: number; msg: string; port: number };
  t.equal(entry.level, 30);
  t.equal(entry.msg, 'serving');
  t.equal(entry.port, 6443);
});

t.test('text format writes a readable single line with fields', async (t) => {
  const lines: string[] = [];
  const log = createLogger({ format: 'text', verbosity: 4, write: (l) => lines.push(l) });
  log.debug({ path: '/api', note: 'two words' }, 'request');
  t.equal(lines.length, 1, '-v 4 enables debug');
  t.match(lines[0], /^\d{4}-\d\d-\d\dT[\d:.]+Z DEBUG request path=\/api note="two words"\n$/);
});

t.test('errors keep their stack in text form', async (t) => {
  const line = formatTextLine(JSON.stringify({ level: 50, time: 0, msg: 'failed', err: { message: 'boom', stack: 'Error: boom\n    at x' } }));
  t.match(line, /^1970-01-01T00:00:00.000Z ERROR failed err=boom\n {4}Error: boom\n/);
});
