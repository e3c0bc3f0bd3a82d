/**
 * The node agent's serving certificate: --tls-cert-file/--tls-private-key-file when given, else
 * kubelet's self-signed pair in <cert dir>/kubelet.crt and kubelet.key, made once for the host name
 * (and the node's IPs) by a CA `<host>-ca@<unix time>` as client-go's GenerateSelfSignedCertKey does;
 * the certificate file holds the leaf then the CA.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import forge from 'node-forge';
import { baseCertificate, newKeyPair, writeAtomically } from '../../server/pki';

const UTF8 = forge.asn1.Type.UTF8 as unknown as forge.asn1.Class;

export interface AgentServingCertificate {
  cert: string;
  key: string;
  certFile: string;
  keyFile: string;
}

function named(publicKey: forge.pki.PublicKey, cn: string, now: number): forge.pki.Certificate {
  const cert = baseCertificate(publicKey, now, 365);
  cert.setSubject([{ name: 'commonName', value: cn, valueTagClass: UTF8 }]);
  return cert;
}

/** a CA-signed serving pair for `host` (a name or an IP) and the extra IPs and names */
export function generateSelfSignedCertKey(host: string, ips: readonly string[], dnsNames: readonly string[], now = Date.now()): { cert: string; key: string } {
  const stamp = Math.floor(now / 1000);
  const ca = newKeyPair();
  const caCert = named(ca.publicKey, `${host}-ca@${stamp}`, now);
  caCert.setIssuer(caCert.subject.attributes);
  caCert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, digitalSignature: true, keyEncipherment: true, critical: true },
  ]);
  caCert.sign(ca.privateKey, forge.md.sha256.create());
  const leaf = newKeyPair();
  const cert = named(leaf.publicKey, `${host}@${stamp}`, now);
  cert.setIssuer(caCert.subject.attributes);
  const altNames: object[] = [];
  const allIps = [...(net.isIP(host) ? [host] : []), ...ips];
  const allNames = [...(net.isIP(host) ? [] : [host]), ...dnsNames];
  for (const ip of new Set(allIps)) altNames.push({ type: 7, ip });
  for (const value of new Set(allNames)) altNames.push({ type: 2, value });
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames },
  ]);
  cert.sign(ca.privateKey, forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert) + forge.pki.certificateToPem(caCert), key: leaf.keyPem };
}

/** the files given, else the pair kept in certDir (made when absent) */
export function agentServingCertificate(o: { tlsCertFile?: string; tlsPrivateKeyFile?: string; certDir: string; hostname: string; nodeIps?: readonly string[] }): AgentServingCertificate {
  if (o.tlsCertFile && o.tlsPrivateKeyFile) {
    return { cert: fs.readFileSync(o.tlsCertFile, 'utf8'), key: fs.readFileSync(o.tlsPrivateKeyFile, 'utf8'), certFile: o.tlsCertFile, keyFile: o.tlsPrivateKeyFile };
  }
  const certFile = path.join(o.certDir, 'kubelet.crt');
  const keyFile = path.join(o.certDir, 'kubelet.key');
  if (fs.existsSync(certFile) && fs.existsSync(keyFile)) {
    return { cert: fs.readFileSync(certFile, 'utf8'), key: fs.readFileSync(keyFile, 'utf8'), certFile, keyFile };
  }
  const made = generateSelfSignedCertKey(o.hostname, o.nodeIps ?? [], []);
  fs.mkdirSync(o.certDir, { recursive: true });
  writeAtomically(certFile, made.cert, 0o644);
  writeAtomically(keyFile, made.key, 0o600);
  return { ...made, certFile, keyFile };
}
