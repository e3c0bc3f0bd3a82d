/**
 * kube's csrapproving controller (pkg/controller/certificates/approver/sarapprove.go): a pending
 * kubelet client CSR (signer kube-apiserver-client-kubelet, CN system:node:<name>, O system:nodes,
 * exactly the usages digital signature, key encipherment and client auth, no SANs) is approved when
 * a SubjectAccessReview says its requestor may create certificatesigningrequests/selfnodeclient (a
 * node renewing its own certificate) or certificatesigningrequests/nodeclient. Others stay pending.
 */
import { firstPemBlock, parseCertificateRequest, type CertificateRequest } from '../../api/kinds/certificates/csr-request';
import { KUBELET_CLIENT } from '../../api/kinds/certificates/signer-name';
import { isConflict, isNotFound } from '../../client/errors';
import { RESOURCES } from '../../client/resources';
import type { KubeObject } from '../../client/types';
import { runWorkers, WorkQueue } from '../../client/workqueue';
import type { ControllerContext, ControllerDefinition } from '../types';
import { kubeletClientRefusal } from './signer-checks';
import { certificateOf, conditionsOf, hasCondition, requestPem, specOf } from './csr-util';

/** kube's isNodeClientCert: a kubelet client request kube's ValidateKubeletClientCSR accepts */
export const isNodeClientCert = (csr: KubeObject, req: CertificateRequest): boolean => kubeletClientRefusal(req, specOf(csr).usages ?? []) === '';

export const isSelfNodeClientCert = (csr: KubeObject, req: CertificateRequest): boolean =>
  isNodeClientCert(csr, req) && specOf(csr).username === req.commonName;

async function allowed(ctx: ControllerContext, csr: KubeObject, subresource: string): Promise<boolean> {
  const spec = specOf(csr);
  const review = (await ctx.client.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
    body: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: spec.username,
        uid: spec.uid,
        groups: spec.groups,
        extra: spec.extra,
        resourceAttributes: { group: 'certificates.k8s.io', resource: 'certificatesigningrequests', verb: 'create', subresource },
      },
    },
  })) as { status?: { allowed?: boolean } };
  return review.status?.allowed === true;
}

export const APPROVAL_MESSAGE = 'Auto approving kubelet client certificate after SubjectAccessReview.';

export const csrApprovingController: ControllerDefinition = {
  name: 'csrapproving',
  async start(ctx) {
    const queue = new WorkQueue<string>({ name: 'certificate' });
    const csrs = ctx.informers.informerFor(RESOURCES.certificateSigningRequests);
    csrs.addEventHandler({ add: (c) => queue.add(c.metadata?.name ?? ''), update: (_o, c) => queue.add(c.metadata?.name ?? '') });
    ctx.signal.addEventListener('abort', () => queue.shutDown(), { once: true });
    if (!(await ctx.informers.waitForCacheSync(ctx.signal))) return;
    await runWorkers(
      queue,
      5,
      async (name) => {
        const csr = csrs.store.get(name);
        if (!csr || specOf(csr).signerName !== KUBELET_CLIENT) return;
        if (hasCondition(csr, 'Approved') || hasCondition(csr, 'Denied') || certificateOf(csr)) return;
        const block = firstPemBlock(requestPem(csr));
        if (!block || block.type !== 'CERTIFICATE REQUEST') throw new Error('unable to parse csr: PEM block type must be CERTIFICATE REQUEST');
        const req = parseCertificateRequest(block.der);
        for (const [recognize, subresource] of [
          [isSelfNodeClientCert, 'selfnodeclient'],
          [isNodeClientCert, 'nodeclient'],
        ] as const) {
          if (!recognize(csr, req) || !(await allowed(ctx, csr, subresource))) continue;
          const conditions = [...conditionsOf(csr), { type: 'Approved', status: 'True', reason: 'AutoApproved', message: APPROVAL_MESSAGE }];
          try {
            await ctx.client.update(RESOURCES.certificateSigningRequests, { ...csr, status: { ...(csr.status as object), conditions } }, 'approval');
          } catch (err) {
            if (isNotFound(err)) return;
            if (!isConflict(err)) throw err;
            queue.addAfter(name, 100);
          }
          return;
        }
      },
      (key, err) => ctx.logger.error({ err, csr: key }, 'auto-approving a certificate signing request failed'),
    );
  },
};
