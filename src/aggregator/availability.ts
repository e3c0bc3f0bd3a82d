/**
 * kube's availability check of one APIService (the AvailableConditionController's sync): the
 * Available condition with kube's reasons and messages, in kube's order of checks:
 *
 *   local                                    True  Local
 *   Service missing                          False ServiceNotFound
 *   Service lookup failed                    Unknown ServiceAccessError
 *   ClusterIP Service without the port       False ServicePortError
 *   ClusterIP Service, Endpoints missing     False EndpointsNotFound
 *   Endpoints lookup failed                  Unknown EndpointsAccessError
 *   no ready address with the port's name    False MissingEndpoints
 *   discovery GET failed five times          False FailedDiscoveryCheck
 *   otherwise                                True  Passed
 */
import type { KubeObject } from '../api/kind';
import { arrAt, isObj, objAt, str } from '../api/kinds/util';
import type { APIService, APIServiceCondition } from './apiservice';
import { isRemote, localAvailableCondition, nowTimestamp, servicePort } from './apiservice';

export interface AvailabilityDeps {
  /** the Service (undefined when it does not exist; a throw is an access error) */
  service(namespace: string, name: string): KubeObject | undefined;
  endpoints(namespace: string, name: string): KubeObject | undefined;
  /** one discovery GET of the registration's group/version: undefined on success, else kube's error text */
  probe(s: APIService): Promise<string | undefined>;
  clock?: () => Date;
}

/** kube makes five attempts at once and is satisfied by one success */
export const PROBE_ATTEMPTS = 5;

function condition(status: APIServiceCondition['status'], reason: string, message: string, now: Date): APIServiceCondition {
  return { type: 'Available', status, lastTransitionTime: nowTimestamp(now), reason, message };
}

export async function checkAvailability(s: APIService, deps: AvailabilityDeps): Promise<APIServiceCondition> {
  const now = (deps.clock ?? (() => new Date()))();
  if (!isRemote(s)) return localAvailableCondition(now);
  const ref = s.spec.service ?? {};
  const [ns, name, port] = [ref.namespace ?? '', ref.name ?? '', servicePort(s)];
  const what = `service/${name} in ${JSON.stringify(ns)}`;

  let svc: KubeObject | undefined;
  try {
    svc = deps.service(ns, name);
  } catch (err) {
    return condition('Unknown', 'ServiceAccessError', `${what} cannot be checked due to: ${(err as Error).message}`, now);
  }
  if (!svc) return condition('False', 'ServiceNotFound', `${what} is not present`, now);

  const spec = objAt(svc, 'spec') ?? {};
  if ((str(spec.type) || 'ClusterIP') === 'ClusterIP') {
    // a ClusterIP Service must listen on the port and have an endpoint behind it
    const svcPort = arrAt(spec, 'ports').find((p) => isObj(p) && p.port === port);
    if (!isObj(svcPort)) return condition('False', 'ServicePortError', `${what} is not listening on port ${port}`, now);
    const portName = str(svcPort.name);
    let eps: KubeObject | undefined;
    try {
      eps = deps.endpoints(ns, name);
    } catch (err) {
      return condition('Unknown', 'EndpointsAccessError', `${what} cannot be checked due to: ${(err as Error).message}`, now);
    }
    if (!eps) return condition('False', 'EndpointsNotFound', `cannot find endpoints for ${what}`, now);
    const active = arrAt(eps, 'subsets').some(
      (ss) => arrAt(ss, 'addresses').length > 0 && arrAt(ss, 'ports').some((p) => isObj(p) && str(p.name) === portName),
    );
    if (!active) {
      return condition('False', 'MissingEndpoints', `endpoints for ${what} have no addresses with port name ${JSON.stringify(portName)}`, now);
    }
  }

  const results = await Promise.all(Array.from({ length: PROBE_ATTEMPTS }, () => deps.probe(s)));
  // kube keeps the last error it received when every attempt failed
  if (results.every((r) => r !== undefined)) return condition('False', 'FailedDiscoveryCheck', String(results[results.length - 1]), now);
  return condition('True', 'Passed', 'all checks passed', now);
}
