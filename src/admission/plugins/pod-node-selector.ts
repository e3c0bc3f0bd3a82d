/**
 * PodNodeSelector (kube's plugin/pkg/admission/podnodeselector). New pods get their namespace's
 * node selector (annotation scheduler.alpha.kubernetes.io/node-selector, else the configuration's
 * clusterDefaultNodeSelector) merged into spec.nodeSelector; a pod selector that contradicts it,
 * or one outside the namespace's whitelist from the configuration, is refused.
 *
 * Configuration: `podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: "k=v", <namespace>: "k=v" }`,
 * bare (kube's legacy file) or inside a PodNodeSelectorConfiguration of
 * podnodeselector.admission.k8s.io/v1alpha1.
 */
import type { Admission, AdmissionAttributes } from '../types';
import type { AdmissionPluginContext } from '../context';
import { admissionForbidden, isResource } from '../forbidden';
import { ApiError } from '../../api/errors';
import { podSpec } from './pod';
import { annotationsOf, isObj, labelsConflict, pluginConfigError, requestNamespace, selectorToLabels } from './plugin-config';

const PLUGIN = 'PodNodeSelector';
export const NODE_SELECTOR_ANNOTATION = 'scheduler.alpha.kubernetes.io/node-selector';
const CONFLICT = 'pod node label selector conflicts with its namespace node label selector';
const NOT_WHITELISTED = 'pod node label selector labels conflict with its namespace whitelist';

/** the selectors by namespace name (and clusterDefaultNodeSelector), each checked at start-up */
function readConfiguration(ctx: AdmissionPluginContext): Map<string, Record<string, string>> {
  const out = new Map<string, Record<string, string>>();
  const c = ctx.configuration;
  if (c === undefined || c === null) return out;
  if (!isObj(c)) throw pluginConfigError(ctx, PLUGIN, 'expected an object with podNodeSelectorPluginConfig');
  if (c.kind !== undefined && c.kind !== 'PodNodeSelectorConfiguration') {
    throw pluginConfigError(ctx, PLUGIN, `expected kind PodNodeSelectorConfiguration of apiVersion podnodeselector.admission.k8s.io/v1alpha1, got ${String(c.kind)}`);
  }
  const selectors = c.podNodeSelectorPluginConfig ?? {};
  if (!isObj(selectors)) throw pluginConfigError(ctx, PLUGIN, 'podNodeSelectorPluginConfig must map names to label selectors');
  for (const [name, selector] of Object.entries(selectors)) {
    if (typeof selector !== 'string') throw pluginConfigError(ctx, PLUGIN, `podNodeSelectorPluginConfig.${name} must be a label selector string`);
    try {
      out.set(name, selectorToLabels(selector));
    } catch (err) {
      throw pluginConfigError(ctx, PLUGIN, `podNodeSelectorPluginConfig.${name}: ${(err as Error).message}`);
    }
  }
  return out;
}

function appliesTo(a: AdmissionAttributes): boolean {
  return a.operation === 'CREATE' && isResource(a, '', 'pods') && a.object !== undefined;
}

export function podNodeSelector(ctx: AdmissionPluginContext): Admission {
  const config = readConfiguration(ctx);

  /** the namespace's selector: its annotation, else the cluster default */
  const namespaceSelector = async (name: string): Promise<Record<string, string>> => {
    const annotations = annotationsOf(await requestNamespace(ctx, name));
    if (annotations[NODE_SELECTOR_ANNOTATION] === undefined) return config.get('clusterDefaultNodeSelector') ?? {};
    try {
      return selectorToLabels(annotations[NODE_SELECTOR_ANNOTATION]);
    } catch (err) {
      throw new ApiError(500, 'InternalError', `Internal error occurred: ${(err as Error).message}`);
    }
  };

  return {
    async admit(a) {
      if (!appliesTo(a)) return;
      const spec = podSpec(a.object!);
      const selector = await namespaceSelector(a.namespace);
      const own = isObj(spec.nodeSelector) ? spec.nodeSelector : {};
      if (labelsConflict(selector, own)) throw admissionForbidden(a, CONFLICT);
      const merged = { ...selector, ...own };
      if (Object.keys(merged).length) spec.nodeSelector = merged;
    },
    async validate(a) {
      if (!appliesTo(a)) return;
      const own = isObj(podSpec(a.object!).nodeSelector) ? podSpec(a.object!).nodeSelector! : {};
      if (labelsConflict(await namespaceSelector(a.namespace), own)) throw admissionForbidden(a, CONFLICT);
      const whitelist = config.get(a.namespace) ?? {};
      if (Object.keys(whitelist).length === 0) return;
      if (Object.entries(own).some(([k, v]) => whitelist[k] !== v)) throw admissionForbidden(a, NOT_WHITELISTED);
    },
  };
}
