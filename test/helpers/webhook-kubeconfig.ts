import fs from 'node:fs';

/**
 * Write the kubeconfig a webhook flag names (--authentication-token-webhook-config-file,
 * --authorization-webhook-config-file, ...): one cluster at `server` trusting `caFile` (relative
 * paths resolve against the kubeconfig's folder), and a user with `token` when given.
 */
export function writeWebhookKubeconfig(file: string, server: string, caFile: string, token?: string): void {
  const user = token === undefined ? 'user: {}' : `user:\n    token: ${token}`;
  fs.writeFileSync(
    file,
    `apiVersion: v1\nkind: Config\nclusters:\n- name: w\n  cluster:\n    server: ${server}\n    certificate-authority: ${caFile}\nusers:\n- name: api\n  ${user}\ncontexts:\n- name: c\n  context: {cluster: w, user: api}\ncurrent-context: c\n`,
  );
}
