/**
 * kube's flowcontrol defaults per version (pkg/apis/flowcontrol/<version>/defaults.go):
 * FlowSchema matchingPrecedence 1000; limited levels 30 shares (v1: when unset; v1beta3: when 0
 * without the preserve-zero annotation; earlier: assuredConcurrencyShares when 0) and
 * lendablePercent 0; the exempt settings 0 and 0; queuing 64 queues, hand size 8, 50 per queue.
 */
import type { KubeObject } from '../../kind';
import { ensureObj, isObj, objAt } from '../util';
import type { Obj } from '../util';
import type { FlowcontrolVersion } from './flowcontrol-conversion';
import { PRESERVE_ZERO_SHARES_ANNOTATION } from './flowcontrol-conversion';

const DEFAULT_SHARES = 30;

export function defaultFlowSchema(obj: KubeObject): void {
  const spec = ensureObj(obj, 'spec');
  if (spec.matchingPrecedence === undefined || spec.matchingPrecedence === null || spec.matchingPrecedence === 0) spec.matchingPrecedence = 1000;
  ensureObj(obj, 'status');
}

const unset = (v: unknown): boolean => v === undefined || v === null;

function defaultQueuing(limited: Obj): void {
  const queuing = objAt(objAt(limited, 'limitResponse'), 'queuing');
  if (!queuing) return;
  if (!queuing.handSize) queuing.handSize = 8;
  if (!queuing.queues) queuing.queues = 64;
  if (!queuing.queueLengthLimit) queuing.queueLengthLimit = 50;
}

export function defaultPriorityLevel(version: FlowcontrolVersion, obj: KubeObject): void {
  const spec = ensureObj(obj, 'spec');
  const limited = objAt(spec, 'limited');
  if (limited) {
    if (version === 'v1') {
      if (unset(limited.nominalConcurrencyShares)) limited.nominalConcurrencyShares = DEFAULT_SHARES;
    } else if (version === 'v1beta3') {
      const annotations = obj.metadata?.annotations;
      const preserve = isObj(annotations) && PRESERVE_ZERO_SHARES_ANNOTATION in annotations;
      if (!preserve && !limited.nominalConcurrencyShares) limited.nominalConcurrencyShares = DEFAULT_SHARES;
    } else if (!limited.assuredConcurrencyShares) {
      limited.assuredConcurrencyShares = DEFAULT_SHARES;
    }
    if (version !== 'v1alpha1' && unset(limited.lendablePercent)) limited.lendablePercent = 0;
    defaultQueuing(limited);
  }
  const exempt = objAt(spec, 'exempt');
  if (exempt && version !== 'v1alpha1') {
    if (unset(exempt.nominalConcurrencyShares)) exempt.nominalConcurrencyShares = 0;
    if (unset(exempt.lendablePercent)) exempt.lendablePercent = 0;
  }
  ensureObj(obj, 'status');
}
