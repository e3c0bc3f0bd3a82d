/**
 * kube's cluster authentication trust: the API server publishes how it authenticates clients in the
 * ConfigMap kube-system/extension-apiserver-authentication, which aggregated API servers read (the
 * bootstrap Role extension-apiserver-authentication-reader lets them). Keys: client-ca-file, and
 * with a front-proxy CA requestheader-client-ca-file plus the header lists and allowed names as
 * JSON arrays. Reconciled at every start to what the flags say now.
 */
import type { BootstrapObject } from '../../api/bootstrap-objects';
import type { KubeObject } from '../../api/kind';

export interface ClusterAuthenticationInfo {
  /** the client CA bundle (PEM) */
  clientCa?: string;
  requestHeader?: {
    clientCa: string;
    allowedNames: readonly string[];
    usernameHeaders: readonly string[];
    groupHeaders: readonly string[];
    extraHeadersPrefix: readonly string[];
  };
}

export const EXTENSION_AUTHENTICATION_CONFIGMAP = 'extension-apiserver-authentication';

export function extensionAuthenticationConfigMap(info: ClusterAuthenticationInfo): BootstrapObject {
  const data: Record<string, string> = {};
  if (info.clientCa) data['client-ca-file'] = info.clientCa;
  const rh = info.requestHeader;
  if (rh) {
    data['requestheader-client-ca-file'] = rh.clientCa;
    data['requestheader-allowed-names'] = JSON.stringify(rh.allowedNames);
    data['requestheader-username-headers'] = JSON.stringify(rh.usernameHeaders);
    data['requestheader-group-headers'] = JSON.stringify(rh.groupHeaders);
    data['requestheader-extra-headers-prefix'] = JSON.stringify(rh.extraHeadersPrefix);
  }
  return {
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: EXTENSION_AUTHENTICATION_CONFIGMAP, namespace: 'kube-system' }, data },
    reconcile(existing: KubeObject, wanted: KubeObject): KubeObject | undefined {
      const have = JSON.stringify(sorted((existing as { data?: Record<string, string> }).data ?? {}));
      if (have === JSON.stringify(sorted(data))) return undefined;
      return { ...existing, data: (wanted as { data?: Record<string, string> }).data };
    },
  };
}

function sorted(o: Record<string, string>): [string, string][] {
  return Object.entries(o).sort(([a], [b]) => a.localeCompare(b));
}
