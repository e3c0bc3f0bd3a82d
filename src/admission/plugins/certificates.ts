/**
 * The certificate plugins (kube's plugin/pkg/admission/certificates): CertificateApproval and
 * CertificateSigning ask the authorizer whether the caller may `approve` or `sign` for the
 * request's signerName (resource signers.certificates.k8s.io, by name or `<domain>/*`) when the
 * approval subresource is written or the status gets a certificate; CertificateSubjectRestriction
 * refuses kube-apiserver-client requests for the system:masters group.
 */
import type forge from 'node-forge';
import type { KubeObject } from '../../api/kind';
import type { Admission, AdmissionAttributes } from '../types';
import type { AdmissionPluginContext } from '../context';
import { admissionForbidden, isResource } from '../forbidden';
import { validating } from '../chain';
import { lazy } from '../../util/lazy';

/** node-forge (0.9 MB of JavaScript) is loaded the first time it is needed */
const forgeLib = lazy(() => require('node-forge') as typeof forge);

const GROUP = 'certificates.k8s.io';
const API_SERVER_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client';
const ORGANIZATION_OID = '2.5.4.10';

function signerOf(csr: KubeObject | undefined): string {
  return (csr?.spec as { signerName?: string } | undefined)?.signerName ?? '';
}

async function mayActOnSigner(ctx: AdmissionPluginContext, a: AdmissionAttributes, verb: string, signer: string): Promise<boolean> {
  if (!ctx.authorizer || !a.user) return true;
  const slash = signer.indexOf('/');
  const names = slash > 0 ? [signer, `${signer.slice(0, slash)}/*`] : [signer];
  for (const name of names) {
    const decision = await ctx.authorizer.authorize({ user: a.user, verb, resourceRequest: true, apiGroup: GROUP, resource: 'signers', name });
    if (decision.allowed) return true;
  }
  return false;
}

export function certificateApproval(ctx: AdmissionPluginContext): Admission {
  return validating(async (a) => {
    if (a.operation !== 'UPDATE' || !isResource(a, GROUP, 'certificatesigningrequests', 'approval') || !a.object) return;
    const signer = signerOf(a.oldObject ?? a.object);
    if (!(await mayActOnSigner(ctx, a, 'approve', signer))) throw admissionForbidden(a, `user not permitted to approve requests with signerName "${signer}"`);
  });
}

export function certificateSigning(ctx: AdmissionPluginContext): Admission {
  return validating(async (a) => {
    if (a.operation !== 'UPDATE' || !isResource(a, GROUP, 'certificatesigningrequests', 'status') || !a.object) return;
    const certOf = (o?: KubeObject) => (o?.status as { certificate?: string } | undefined)?.certificate ?? '';
    if (certOf(a.object) === certOf(a.oldObject)) return;
    const signer = signerOf(a.oldObject ?? a.object);
    if (!(await mayActOnSigner(ctx, a, 'sign', signer))) throw admissionForbidden(a, `user not permitted to sign requests with signerName "${signer}"`);
  });
}

/** the subject organizations of a PEM certificate request (any key type); undefined when it does not parse */
export function requestOrganizations(pem: string): string[] | undefined {
  try {
    const der = forgeLib().pem.decode(pem).find((m) => m.type === 'CERTIFICATE REQUEST' || m.type === 'NEW CERTIFICATE REQUEST');
    if (!der) return undefined;
    const root = forgeLib().asn1.fromDer(der.body);
    const info = (root.value as forge.asn1.Asn1[])[0];
    const subject = (info.value as forge.asn1.Asn1[])[1];
    const orgs: string[] = [];
    for (const rdn of subject.value as forge.asn1.Asn1[]) {
      for (const attr of rdn.value as forge.asn1.Asn1[]) {
        const [oid, value] = attr.value as forge.asn1.Asn1[];
        if (forgeLib().asn1.derToOid(oid.value as string) === ORGANIZATION_OID) orgs.push(value.value as string);
      }
    }
    return orgs;
  } catch {
    return undefined;
  }
}

export function certificateSubjectRestriction(): Admission {
  return validating((a) => {
    if (a.operation !== 'CREATE' || !isResource(a, GROUP, 'certificatesigningrequests') || !a.object) return;
    const signer = signerOf(a.object);
    if (signer !== API_SERVER_CLIENT_SIGNER) return;
    const request = (a.object.spec as { request?: string } | undefined)?.request ?? '';
    const orgs = requestOrganizations(Buffer.from(request, 'base64').toString('utf8'));
    if (orgs?.includes('system:masters')) throw admissionForbidden(a, `use of ${signer} signer with system:masters group is not allowed`);
  });
}
