/**
 * kube's pod table (printPod): READY as ready/total containers, STATUS from the phase, reason and
 * container states, RESTARTS with the time of the last restart, and the wide columns.
 */
import type { KubeObject, TableDefinition } from '../../kind';
import { ageColumn, column, humanDuration, nameColumn, age } from '../table-format';
import { arrAt, isObj, objAt, path, str } from '../util';
import type { Obj } from '../util';

function terminatedReason(t: Obj, prefix: string): string {
  if (str(t.reason)) return prefix + str(t.reason);
  if (typeof t.signal === 'number' && t.signal !== 0) return `${prefix}Signal:${t.signal}`;
  return `${prefix}ExitCode:${typeof t.exitCode === 'number' ? t.exitCode : 0}`;
}

function hasCondition(status: Obj | undefined, type: string): boolean {
  return arrAt(status, 'conditions').some((c) => isObj(c) && c.type === type && c.status === 'True');
}

function isRestartableInit(c: unknown): boolean {
  return isObj(c) && c.restartPolicy === 'Always';
}

export function podCells(pod: KubeObject, now: Date): unknown[] {
  const spec = objAt(pod, 'spec') ?? {};
  const status = objAt(pod, 'status') ?? {};
  const initSpecs = new Map<string, unknown>(arrAt(spec, 'initContainers').filter(isObj).map((c) => [str(c.name), c]));
  let total = arrAt(spec, 'containers').length + [...initSpecs.values()].filter(isRestartableInit).length;
  let ready = 0;
  let restarts = 0;
  let sidecarRestarts = 0;
  let lastRestart = 0;
  let lastSidecarRestart = 0;
  const phase = str(status.phase);
  let reason = str(status.reason) || phase;
  for (const c of arrAt(status, 'conditions')) {
    if (isObj(c) && c.type === 'PodScheduled' && c.reason === 'SchedulingGated') reason = 'SchedulingGated';
  }
  const finishedAt = (cs: Obj): number => {
    const t = Date.parse(str(path(cs, 'lastState', 'terminated', 'finishedAt')));
    return Number.isNaN(t) ? 0 : t;
  };

  let initializing = false;
  const initStatuses = arrAt(status, 'initContainerStatuses').filter(isObj);
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = initStatuses[i];
    const rc = typeof cs.restartCount === 'number' ? cs.restartCount : 0;
    restarts += rc;
    lastRestart = Math.max(lastRestart, finishedAt(cs));
    const sidecar = isRestartableInit(initSpecs.get(str(cs.name)));
    if (sidecar) {
      sidecarRestarts += rc;
      lastSidecarRestart = Math.max(lastSidecarRestart, finishedAt(cs));
    }
    const terminated = objAt(objAt(cs, 'state'), 'terminated');
    const waiting = objAt(objAt(cs, 'state'), 'waiting');
    if (terminated && terminated.exitCode === 0) continue;
    if (sidecar && cs.started === true) {
      if (cs.ready === true) ready++;
      continue;
    }
    if (terminated) reason = terminatedReason(terminated, 'Init:');
    else if (waiting && str(waiting.reason) && waiting.reason !== 'PodInitializing') reason = `Init:${str(waiting.reason)}`;
    else reason = `Init:${i}/${initSpecs.size}`;
    initializing = true;
    break;
  }

  if (!initializing || hasCondition(status, 'Initialized')) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const statuses = arrAt(status, 'containerStatuses').filter(isObj);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i];
      restarts += typeof cs.restartCount === 'number' ? cs.restartCount : 0;
      lastRestart = Math.max(lastRestart, finishedAt(cs));
      const state = objAt(cs, 'state');
      const waiting = objAt(state, 'waiting');
      const terminated = objAt(state, 'terminated');
      if (waiting && str(waiting.reason)) reason = str(waiting.reason);
      else if (terminated) reason = terminatedReason(terminated, '');
      else if (cs.ready === true && objAt(state, 'running')) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) reason = hasCondition(status, 'Ready') ? 'Running' : 'NotReady';
  }

  const deleting = path(pod, 'metadata', 'deletionTimestamp') !== undefined;
  if (deleting && status.reason === 'NodeLost') reason = 'Unknown';
  else if (deleting && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';

  let restartsCell = String(restarts);
  if (restarts !== 0 && lastRestart > 0) restartsCell = `${restarts} (${humanDuration(now.getTime() - lastRestart)} ago)`;

  const podIPs = arrAt(status, 'podIPs');
  const podIP = (isObj(podIPs[0]) ? str(podIPs[0].ip) : '') || '<none>';
  let gates = '<none>';
  const readinessGates = arrAt(spec, 'readinessGates').filter(isObj);
  if (readinessGates.length > 0) {
    let trueCount = 0;
    for (const g of readinessGates) {
      const cond = arrAt(status, 'conditions').find((c) => isObj(c) && c.type === g.conditionType);
      if (isObj(cond) && cond.status === 'True') trueCount++;
    }
    gates = `${trueCount}/${readinessGates.length}`;
  }
  total = Math.max(total, 0);
  return [
    str(pod.metadata?.name),
    `${ready}/${total}`,
    reason,
    restartsCell,
    age(pod, now),
    podIP,
    str(spec.nodeName) || '<none>',
    str(status.nominatedNodeName) || '<none>',
    gates,
  ];
}

export const podTable: TableDefinition = {
  columns: [
    nameColumn(),
    column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    column('Status', 'string', 'The aggregate status of the containers in this pod.'),
    column('Restarts', 'string', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
    ageColumn(),
    column('IP', 'string', 'IP address allocated to the pod.', 1),
    column('Node', 'string', 'The node the pod is scheduled onto.', 1),
    column('Nominated Node', 'string', 'The node the scheduler nominated for this pod while preempting others.', 1),
    column('Readiness Gates', 'string', 'Pod readiness gates that are true, of those declared.', 1),
  ],
  cells: podCells,
};
