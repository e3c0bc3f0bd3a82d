/**
 * The 409 of an apply that conflicts, as kube's NewConflictError: reason Conflict, one cause
 * (FieldManagerConflict) per field, and the message `Apply failed with 1 conflict: conflict with
 * "kubectl-client-side-apply" using apps/v1: .spec.replicas` (several conflicts are grouped by
 * manager, one `- <path>` line each).
 */
import { ApiError } from '../errors';
import { pathString } from './field-set';
import type { Conflict } from './field-manager';

/** kube's printManager: `"name"`, `"name" with subresource "status"`, `... using apps/v1` for updaters */
export function printManager(key: string): string {
  let id: { manager?: string; operation?: string; apiVersion?: string; subresource?: string };
  try {
    id = JSON.parse(key) as typeof id;
  } catch {
    return JSON.stringify(key);
  }
  let text = JSON.stringify(id.manager ?? '');
  if (id.subresource) text += ` with subresource ${JSON.stringify(id.subresource)}`;
  if (id.operation === 'Update') text += ` using ${id.apiVersion ?? ''}`;
  return text;
}

export function conflictError(conflicts: readonly Conflict[]): ApiError {
  const sorted = [...conflicts].sort((a, b) => (a.managerKey < b.managerKey ? -1 : a.managerKey > b.managerKey ? 1 : 0));
  const causes = sorted.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${printManager(c.managerKey)}`,
    field: pathString(c.path),
  }));
  let message: string;
  if (sorted.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${printManager(sorted[0].managerKey)}: ${pathString(sorted[0].path)}`;
  } else {
    const lines: string[] = [];
    let last: string | undefined;
    for (const c of sorted) {
      if (c.managerKey !== last) lines.push(`conflicts with ${printManager(c.managerKey)}:`);
      last = c.managerKey;
      lines.push(`- ${pathString(c.path)}`);
    }
    message = `Apply failed with ${sorted.length} conflicts: ${lines.join('\n')}`;
  }
  return new ApiError(409, 'Conflict', message, { causes });
}
