/**
 * Helm 3 (the static binary scripts/install-test-deps.sh puts in .tools/helm/helm) against the real
 * server: a chart written here with what community charts use (RBAC, a PodDisruptionBudget and an
 * Ingress chosen by `.Capabilities.APIVersions`, an HPA, a CRD in crds/ and a custom object of it, a
 * webhook configuration, a pre-install hook Job with a delete policy, a `lookup`), installed,
 * upgraded, rolled back and uninstalled.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { kubectlFor, missingKubectl, REPO_ROOT, startApiServer, tempDir } from './harness';

const HELM = path.join(REPO_ROOT, '.tools', 'helm', 'helm');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function helm(home: string, kubeconfig: string, args: string[]): Promise<Run> {
  const child = spawn(HELM, ['--kubeconfig', kubeconfig, ...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, HELM_CACHE_HOME: path.join(home, 'cache'), HELM_CONFIG_HOME: path.join(home, 'config'), HELM_DATA_HOME: path.join(home, 'data') },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const FILES: Record<string, string> = {
  'Chart.yaml': 'apiVersion: v2\nname: shop\nversion: 0.1.0\nappVersion: "1.0"\n',
  'values.yaml': 'replicas: 2\nimage: busybox:1.36\ningress:\n  host: shop.example.com\n',
  'crds/gadgets.yaml': [
    'apiVersion: apiextensions.k8s.io/v1',
    'kind: CustomResourceDefinition',
    'metadata:',
    '  name: gadgets.shop.example.com',
    'spec:',
    '  group: shop.example.com',
    '  scope: Namespaced',
    '  names: {plural: gadgets, singular: gadget, kind: Gadget, shortNames: [gd]}',
    '  versions:',
    '  - name: v1',
    '    served: true',
    '    storage: true',
    '    schema:',
    '      openAPIV3Schema:',
    '        type: object',
    '        properties:',
    '          spec:',
    '            type: object',
    '            properties:',
    '              size: {type: integer, default: 3}',
    '              color: {type: string}',
  ].join('\n'),
  'templates/_helpers.tpl': '{{- define "shop.labels" -}}\napp.kubernetes.io/name: shop\napp.kubernetes.io/instance: {{ .Release.Name }}\n{{- end -}}\n',
  'templates/serviceaccount.yaml': 'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: {{ .Release.Name }}\n  labels:\n    {{- include "shop.labels" . | nindent 4 }}\n',
  'templates/rbac.yaml': [
    'apiVersion: rbac.authorization.k8s.io/v1',
    'kind: Role',
    'metadata:',
    '  name: {{ .Release.Name }}',
    'rules:',
    '- apiGroups: [""]',
    '  resources: [configmaps]',
    '  verbs: [get, list, watch]',
    '---',
    'apiVersion: rbac.authorization.k8s.io/v1',
    'kind: RoleBinding',
    'metadata:',
    '  name: {{ .Release.Name }}',
    'roleRef:',
    '  apiGroup: rbac.authorization.k8s.io',
    '  kind: Role',
    '  name: {{ .Release.Name }}',
    'subjects:',
    '- kind: ServiceAccount',
    '  name: {{ .Release.Name }}',
    '  namespace: {{ .Release.Namespace }}',
    '---',
    'apiVersion: rbac.authorization.k8s.io/v1',
    'kind: ClusterRole',
    'metadata:',
    '  name: {{ .Release.Name }}-reader',
    'rules:',
    '- apiGroups: [shop.example.com]',
    '  resources: [gadgets]',
    '  verbs: [get, list, watch]',
    '---',
    'apiVersion: rbac.authorization.k8s.io/v1',
    'kind: ClusterRoleBinding',
    'metadata:',
    '  name: {{ .Release.Name }}-reader',
    'roleRef:',
    '  apiGroup: rbac.authorization.k8s.io',
    '  kind: ClusterRole',
    '  name: {{ .Release.Name }}-reader',
    'subjects:',
    '- kind: ServiceAccount',
    '  name: {{ .Release.Name }}',
    '  namespace: {{ .Release.Namespace }}',
  ].join('\n'),
  'templates/deployment.yaml': [
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata:',
    '  name: {{ .Release.Name }}',
    '  labels:',
    '    {{- include "shop.labels" . | nindent 4 }}',
    'spec:',
    '  replicas: {{ .Values.replicas }}',
    '  selector:',
    '    matchLabels:',
    '      {{- include "shop.labels" . | nindent 6 }}',
    '  template:',
    '    metadata:',
    '      labels:',
    '        {{- include "shop.labels" . | nindent 8 }}',
    '    spec:',
    '      serviceAccountName: {{ .Release.Name }}',
    '      containers:',
    '      - name: shop',
    '        image: {{ .Values.image }}',
    '        resources: {{ .Values.resources | toYaml }}',
    '        ports:',
    '        - containerPort: 8080',
    '          hostPort: null',
    '---',
    'apiVersion: v1',
    'kind: Service',
    'metadata:',
    '  name: {{ .Release.Name }}',
    'spec:',
    '  selector:',
    '    {{- include "shop.labels" . | nindent 4 }}',
    '  ports:',
    '  - port: 80',
    '    targetPort: 8080',
    '    nodePort: null',
  ].join('\n'),
  'templates/pdb.yaml': [
    '{{- if .Capabilities.APIVersions.Has "policy/v1/PodDisruptionBudget" }}',
    'apiVersion: policy/v1',
    '{{- else }}',
    'apiVersion: policy/v1beta1',
    '{{- end }}',
    'kind: PodDisruptionBudget',
    'metadata:',
    '  name: {{ .Release.Name }}',
    'spec:',
    '  minAvailable: 1',
    '  selector:',
    '    matchLabels:',
    '      {{- include "shop.labels" . | nindent 6 }}',
  ].join('\n'),
  'templates/ingress.yaml': [
    '{{- if .Capabilities.APIVersions.Has "networking.k8s.io/v1/Ingress" }}',
    'apiVersion: networking.k8s.io/v1',
    'kind: Ingress',
    'metadata:',
    '  name: {{ .Release.Name }}',
    'spec:',
    '  rules:',
    '  - host: {{ .Values.ingress.host }}',
    '    http:',
    '      paths:',
    '      - path: /',
    '        pathType: Prefix',
    '        backend:',
    '          service:',
    '            name: {{ .Release.Name }}',
    '            port:',
    '              number: 80',
    '{{- end }}',
  ].join('\n'),
  'templates/hpa.yaml': [
    'apiVersion: autoscaling/v2',
    'kind: HorizontalPodAutoscaler',
    'metadata:',
    '  name: {{ .Release.Name }}',
    'spec:',
    '  scaleTargetRef:',
    '    apiVersion: apps/v1',
    '    kind: Deployment',
    '    name: {{ .Release.Name }}',
    '  minReplicas: 1',
    '  maxReplicas: 5',
    '  metrics:',
    '  - type: Resource',
    '    resource:',
    '      name: cpu',
    '      target:',
    '        type: Utilization',
    '        averageUtilization: 70',
  ].join('\n'),
  'templates/gadget.yaml': 'apiVersion: shop.example.com/v1\nkind: Gadget\nmetadata:\n  name: {{ .Release.Name }}-gadget\nspec:\n  color: blue\n',
  'templates/webhook.yaml': [
    'apiVersion: admissionregistration.k8s.io/v1',
    'kind: ValidatingWebhookConfiguration',
    'metadata:',
    '  name: {{ .Release.Name }}-validate',
    'webhooks:',
    '- name: validate.shop.example.com',
    '  clientConfig:',
    '    service:',
    '      name: {{ .Release.Name }}',
    '      namespace: {{ .Release.Namespace }}',
    '      path: /validate',
    '  rules:',
    '  - apiGroups: [shop.example.com]',
    '    apiVersions: [v1]',
    '    operations: [CREATE, UPDATE]',
    '    resources: [gadgets]',
    '  failurePolicy: Ignore',
    '  sideEffects: None',
    '  admissionReviewVersions: [v1]',
  ].join('\n'),
  'templates/config.yaml': [
    '{{- $existing := lookup "v1" "ConfigMap" .Release.Namespace (printf "%s-config" .Release.Name) }}',
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    '  name: {{ .Release.Name }}-config',
    'data:',
    '  replicas: {{ .Values.replicas | quote }}',
    '  seen-before: {{ if $existing }}"yes"{{ else }}"no"{{ end }}',
  ].join('\n'),
  'templates/hook.yaml': [
    'apiVersion: batch/v1',
    'kind: Job',
    'metadata:',
    '  name: {{ .Release.Name }}-setup',
    '  annotations:',
    '    helm.sh/hook: pre-install',
    '    helm.sh/hook-delete-policy: before-hook-creation',
    'spec:',
    '  backoffLimit: 0',
    '  template:',
    '    spec:',
    '      restartPolicy: Never',
    '      containers:',
    '      - name: setup',
    '        image: busybox:1.36',
  ].join('\n'),
};

t.test('helm install, upgrade, rollback and uninstall of a chart using the whole API', { skip: !fs.existsSync(HELM) ? `${HELM} is missing (scripts/install-test-deps.sh)` : missingKubectl('1.32') }, async (t) => {
  const server = await startApiServer(t);
  const home = tempDir(t, 'helm');
  const chart = path.join(home, 'shop');
  for (const [file, text] of Object.entries(FILES)) {
    fs.mkdirSync(path.dirname(path.join(chart, file)), { recursive: true });
    fs.writeFileSync(path.join(chart, file), text);
  }
  const kubectl = kubectlFor(t, '1.32', server);
  const run = (args: string[]) => helm(home, server.kubeconfig, args);

  // the hook Job is waited for (helm waits for a hook Job to complete): nothing runs pods here, so play the Job controller
  const install = run(['install', 'shop', chart, '--namespace', 'default', '--timeout', '60s']);
  const completeHook = (async () => {
    for (let i = 0; i < 300; i++) {
      const r = await kubectl.run(['get', 'job', 'shop-setup', '-o', 'name']);
      if (r.code === 0) {
        const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
        const status = { status: { succeeded: 1, startTime: now, completionTime: now, conditions: [{ type: 'Complete', status: 'True', lastProbeTime: now, lastTransitionTime: now }] } };
        await kubectl.ok(['patch', 'job', 'shop-setup', '--subresource=status', '--type=merge', '-p', JSON.stringify(status)]);
        return;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const installed = await install;
  await completeHook;
  t.equal(installed.code, 0, `helm install: ${installed.stderr}${installed.stdout}`);

  const names = await kubectl.ok(['get', 'serviceaccount,role,rolebinding,deployment,service,pdb,ingress,hpa,gadget,configmap', '-o', 'name']);
  for (const want of [
    'serviceaccount/shop', 'role.rbac.authorization.k8s.io/shop', 'rolebinding.rbac.authorization.k8s.io/shop', 'deployment.apps/shop', 'service/shop',
    // `ingress` resolves to extensions first, as on kube 1.20 (its group sits second in discovery)
    'poddisruptionbudget.policy/shop', 'ingress.extensions/shop', 'horizontalpodautoscaler.autoscaling/shop', 'gadget.shop.example.com/shop-gadget', 'configmap/shop-config',
  ]) {
    t.match(names, want, `${want} created`);
  }
  t.match(await kubectl.ok(['get', 'clusterrole,clusterrolebinding,validatingwebhookconfiguration', '-o', 'name']), /clusterrole.rbac.authorization.k8s.io\/shop-reader[\s\S]*validatingwebhookconfiguration.admissionregistration.k8s.io\/shop-validate/);
  const gadget = await kubectl.json<{ spec: { size: number; color: string } }>(['get', 'gadget', 'shop-gadget']);
  t.same(gadget.spec, { color: 'blue', size: 3 }, 'the CRD default is applied to the custom object');
  const pdb = await kubectl.json<{ apiVersion: string }>(['get', 'pdb', 'shop']);
  t.equal(pdb.apiVersion, 'policy/v1', 'the chart chose policy/v1 from the served API versions');
  const ingress = await kubectl.json<{ spec: { rules: Array<{ host: string }> } }>(['get', 'ingresses.networking.k8s.io', 'shop']);
  t.equal(ingress.spec.rules[0].host, 'shop.example.com', 'the networking.k8s.io/v1 Ingress the chart chose reads back');

  const upgraded = await run(['upgrade', 'shop', chart, '--namespace', 'default', '--set', 'replicas=3']);
  t.equal(upgraded.code, 0, `helm upgrade: ${upgraded.stderr}`);
  const cm = await kubectl.json<{ data: Record<string, string> }>(['get', 'configmap', 'shop-config']);
  t.same(cm.data, { replicas: '3', 'seen-before': 'yes' }, 'upgrade changed the values; lookup saw the existing object');
  const deploy = await kubectl.json<{ spec: { replicas: number } }>(['get', 'deployment', 'shop']);
  t.equal(deploy.spec.replicas, 3);

  const rolledBack = await run(['rollback', 'shop', '1', '--namespace', 'default']);
  t.equal(rolledBack.code, 0, `helm rollback: ${rolledBack.stderr}`);
  t.equal((await kubectl.json<{ spec: { replicas: number } }>(['get', 'deployment', 'shop'])).spec.replicas, 2, 'rollback restored replicas');
  const history = await run(['history', 'shop', '--namespace', 'default']);
  t.match(history.stdout, /Rollback to 1/);

  const uninstalled = await run(['uninstall', 'shop', '--namespace', 'default']);
  t.equal(uninstalled.code, 0, `helm uninstall: ${uninstalled.stderr}`);
  const left = await kubectl.ok(['get', 'deployment,service,pdb,ingress,hpa,gadget,role', '-o', 'name']);
  // the API server's own `kubernetes` Service is not the release's
  t.equal(left.trim().split('\n').filter((l) => l !== '' && l !== 'service/kubernetes').join('\n'), '', 'uninstall removed the release objects');
  t.match(await kubectl.ok(['get', 'crd', '-o', 'name']), 'gadgets.shop.example.com', 'helm keeps CRDs from crds/');
});
