/**
 * EndpointSlice between discovery.k8s.io/v1beta1 and v1, endpoint by endpoint, as kube converts:
 *
 * - v1beta1 -> v1: `topology` is copied to `deprecatedTopology`, its topology.kubernetes.io/zone
 *   label moves to `zone`, its kubernetes.io/hostname label is dropped when it equals `nodeName`;
 *   an emptied map is dropped.
 * - v1 -> v1beta1: `deprecatedTopology` is copied to `topology`, `zone` is added as the zone label
 *   and `nodeName` as the hostname label when that label is not already there.
 *
 * Everything else of the two versions is the same.
 */
import type { KubeObject } from '../../kind';
import { arrAt, clone, isObj, stringMap, type Obj } from '../util';

export const ZONE_LABEL = 'topology.kubernetes.io/zone';
export const HOSTNAME_LABEL = 'kubernetes.io/hostname';

function endpointToV1(ep: Obj): Obj {
  const { topology, ...rest } = ep;
  const out: Obj = rest;
  if (!isObj(topology)) return out;
  const deprecated = stringMap(topology);
  if (ZONE_LABEL in deprecated) {
    out.zone = deprecated[ZONE_LABEL];
    delete deprecated[ZONE_LABEL];
  }
  if (HOSTNAME_LABEL in deprecated && typeof out.nodeName === 'string' && deprecated[HOSTNAME_LABEL] === out.nodeName) {
    delete deprecated[HOSTNAME_LABEL];
  }
  if (Object.keys(deprecated).length > 0) out.deprecatedTopology = deprecated;
  return out;
}

function endpointToV1beta1(ep: Obj): Obj {
  const { deprecatedTopology, zone, ...rest } = ep;
  const out: Obj = rest;
  if (deprecatedTopology === undefined && zone === undefined && out.nodeName === undefined) return out;
  const topology = stringMap(deprecatedTopology);
  if (typeof zone === 'string') topology[ZONE_LABEL] = zone;
  // kube keeps a hostname label that differs from nodeName (v1beta1 allowed both)
  if (typeof out.nodeName === 'string' && !topology[HOSTNAME_LABEL]) topology[HOSTNAME_LABEL] = out.nodeName;
  out.topology = topology;
  return out;
}

function convert(obj: KubeObject, apiVersion: string, endpoint: (ep: Obj) => Obj): KubeObject {
  const out = clone(obj);
  out.apiVersion = apiVersion;
  if (Array.isArray(out.endpoints)) out.endpoints = arrAt(out, 'endpoints').map((ep) => (isObj(ep) ? endpoint(ep) : ep));
  return out;
}

export function endpointSliceToV1(obj: KubeObject): KubeObject {
  return convert(obj, 'discovery.k8s.io/v1', endpointToV1);
}

export function endpointSliceToV1beta1(obj: KubeObject): KubeObject {
  return convert(obj, 'discovery.k8s.io/v1beta1', endpointToV1beta1);
}
