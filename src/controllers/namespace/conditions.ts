/**
 * The conditions a terminating namespace carries (kube's namespaceConditionUpdater): one of each
 * type, True with the failure when something went wrong in this round, False with the type's
 * "okay" reason otherwise. lastTransitionTime moves only when the status flips.
 */

export interface NamespaceCondition {
  type: string;
  status: 'True' | 'False';
  lastTransitionTime?: string;
  reason: string;
  message: string;
}

/** kube's order, which is also the order the conditions are written in */
export const CONDITION_TYPES = [
  'NamespaceDeletionDiscoveryFailure',
  'NamespaceDeletionGroupVersionParsingFailure',
  'NamespaceDeletionContentFailure',
  'NamespaceContentRemaining',
  'NamespaceFinalizersRemaining',
] as const;

const OKAY: Record<(typeof CONDITION_TYPES)[number], { reason: string; message: string }> = {
  NamespaceDeletionDiscoveryFailure: { reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
  NamespaceDeletionGroupVersionParsingFailure: { reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed' },
  NamespaceDeletionContentFailure: { reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' },
  NamespaceContentRemaining: { reason: 'ContentRemoved', message: 'All content successfully removed' },
  NamespaceFinalizersRemaining: { reason: 'ContentHasNoFinalizers', message: 'All content-preserving finalizers finished' },
};

/** what one round of content deletion left behind */
export interface RemainingContent {
  /** `resource.group` -> objects left */
  byResource: Map<string, number>;
  /** finalizer -> objects carrying it */
  byFinalizer: Map<string, number>;
}

export class NamespaceConditionUpdater {
  readonly #failures = new Map<string, NamespaceCondition>();
  readonly #contentErrors: string[] = [];

  discoveryFailed(failedGroups: number, message: string): void {
    this.#set('NamespaceDeletionDiscoveryFailure', 'DiscoveryFailed', failedGroups > 0 ? `Discovery failed for some groups, ${failedGroups} failing: ${message}` : message);
  }

  groupVersionParsingFailed(message: string): void {
    this.#set('NamespaceDeletionGroupVersionParsingFailure', 'GroupVersionParsingFailed', message);
  }

  contentDeletionFailed(message: string): void {
    this.#contentErrors.push(message);
  }

  contentTotals(remaining: RemainingContent): void {
    const resources = [...remaining.byResource].filter(([, n]) => n > 0).map(([r, n]) => `${r} has ${n} resource instances`).sort();
    if (resources.length) this.#set('NamespaceContentRemaining', 'SomeResourcesRemain', `Some resources are remaining: ${resources.join(', ')}`);
    const finalizers = [...remaining.byFinalizer].filter(([, n]) => n > 0).map(([f, n]) => `${f} in ${n} resource instances`).sort();
    if (finalizers.length) {
      this.#set('NamespaceFinalizersRemaining', 'SomeFinalizersRemain', `Some content in the namespace has finalizers remaining: ${finalizers.join(', ')}`);
    }
  }

  /** write this round's conditions into `conditions`; true when anything changed */
  update(conditions: NamespaceCondition[], now: string): boolean {
    if (this.#contentErrors.length && !this.#failures.has('NamespaceDeletionContentFailure')) {
      const msgs = [...this.#contentErrors].sort();
      this.#set('NamespaceDeletionContentFailure', 'ContentDeletionFailed', `Failed to delete all resource types, ${msgs.length} remaining: ${msgs.join(', ')}`);
    }
    let changed = false;
    for (const type of CONDITION_TYPES) {
      const next = this.#failures.get(type) ?? { type, status: 'False' as const, ...OKAY[type] };
      const old = conditions.find((c) => c.type === type);
      if (!old) {
        conditions.push({ ...next, lastTransitionTime: now });
        changed = true;
      } else if (old.status !== next.status || old.reason !== next.reason || old.message !== next.message) {
        if (old.status !== next.status) old.lastTransitionTime = now;
        old.status = next.status;
        old.reason = next.reason;
        old.message = next.message;
        changed = true;
      }
    }
    return changed;
  }

  #set(type: string, reason: string, message: string): void {
    this.#failures.set(type, { type, status: 'True', reason, message });
  }
}
