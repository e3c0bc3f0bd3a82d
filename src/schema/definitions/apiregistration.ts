/**
 * apiregistration.k8s.io v1 and v1beta1 APIService: the registration of an API group/version, served
 * here (local) or by an extension API server behind a Service (aggregated). The two versions have
 * the same fields; v1beta1 was deprecated in 1.19 and is still served by 1.20.
 */
import type { Definitions } from '../types';
import { addKind, bool, bytes, int32, mergeList, obj, ref, str, time } from '../dsl';

function versionDefinitions(version: 'v1' | 'v1beta1'): Definitions {
  const p = `io.k8s.kube-aggregator.pkg.apis.apiregistration.${version}.`;
  const defs: Definitions = {
    [`${p}ServiceReference`]: obj('Where an extension API server is reached: a Service and one of its ports.', {
      name: str('Name of the Service.'),
      namespace: str('Namespace of the Service.'),
      port: int32('Service port the server listens on, 1 to 65535. Defaults to 443.'),
    }),
    [`${p}APIServiceSpec`]: obj(
      'Which group/version is registered and how its server is reached.',
      {
        caBundle: {
          ...bytes('PEM bundle of the CA that signed the extension server\'s serving certificate. Unset: the system roots.'),
          'x-kubernetes-list-type': 'atomic',
        },
        group: str('The API group served.'),
        groupPriorityMinimum: int32(
          'Least priority this registration gives its group, 1 to 20000. Discovery orders groups by their highest priority, then by name.',
        ),
        insecureSkipTLSVerify: bool('Do not verify the extension server\'s certificate when proxying to it. Discouraged: prefer caBundle.'),
        service: ref(`${p}ServiceReference`, 'The Service in front of the extension server. Unset: the group/version is served by this server (local).'),
        version: str('The API version served.'),
        versionPriority: int32('Order of this version within its group, 1 to 1000: higher first, then by Kubernetes version order.'),
      },
      { required: ['groupPriorityMinimum', 'versionPriority'] },
    ),
    [`${p}APIServiceCondition`]: obj(
      'One observed condition of an APIService.',
      {
        lastTransitionTime: time('When the condition last changed status.'),
        message: str('Human-readable details of the last transition.'),
        reason: str('Machine-readable, CamelCase reason for the last transition.'),
        status: str('True, False or Unknown.'),
        type: str('Condition type; Available is the one kept by the server.'),
      },
      { required: ['type', 'status'] },
    ),
    [`${p}APIServiceStatus`]: obj('Observed state of an APIService.', {
      conditions: mergeList(ref(`${p}APIServiceCondition`), 'type', 'Current conditions, one per type.'),
    }),
  };
  addKind(defs, p, { group: 'apiregistration.k8s.io', version, kind: 'APIService' }, 'Registers the server of one API group/version.', {
    spec: ref(`${p}APIServiceSpec`, 'Which group/version and where its server is.'),
    status: ref(`${p}APIServiceStatus`, 'Whether the server is available.'),
  });
  return defs;
}

export const apiregistrationDefinitions: Definitions = {
  ...versionDefinitions('v1'),
  ...versionDefinitions('v1beta1'),
};
