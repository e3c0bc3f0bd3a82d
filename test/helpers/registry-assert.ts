/** shared assertions for registry tests */
import type { Test } from 'tap';
import { isApiError } from '../../src/api/errors';
import type { Status } from '../../src/api/errors';

export async function rejects(t: Test, p: Promise<unknown>, code: number, reason: string, message?: string | RegExp): Promise<Status | undefined> {
  try {
    await p;
    t.fail(`expected ${code} ${reason}`);
    return undefined;
  } catch (err) {
    if (!isApiError(err)) throw err;
    t.equal(err.code, code, `code ${code}`);
    t.equal(err.status.reason, reason, `reason ${reason}`);
    if (typeof message === 'string') t.equal(err.status.message, message);
    else if (message) t.match(err.status.message, message);
    return err.status;
  }
}
