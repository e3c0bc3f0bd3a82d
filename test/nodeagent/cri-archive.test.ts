/**
 * The pieces of the CRI client that need no runtime: the tar writer (read back by the system's
 * tar), OCI archives (every digest checks out, same input same bytes), endpoints and errors.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { status as GrpcStatus } from '@grpc/grpc-js';
import t, { type Test } from 'tap';
import { CriError } from '../../src/nodeagent/cri/cri-error';
import { criTarget } from '../../src/nodeagent/cri/endpoint';
import { ociArchive, referenceTag, MEDIA_TYPES } from '../../src/nodeagent/cri/oci-archive';
import { tarArchive, type TarEntry } from '../../src/nodeagent/cri/tar';
import { RuntimeServiceClient } from '../../src/nodeagent/cri/runtime-service-client';

function tempDir(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-tar-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const sha256 = (data: Buffer): string => `sha256:${crypto.createHash('sha256').update(data).digest('hex')}`;

t.test('tar archives read back by the system tar', async (t) => {
  const longDir = `${'d'.repeat(60)}/${'e'.repeat(60)}`;
  const entries: TarEntry[] = [
    { type: 'directory', path: 'bin' },
    { type: 'file', path: 'bin/tool', data: Buffer.from('#!/bin/sh\necho tool\n'), mode: 0o755 },
    { type: 'symlink', path: 'bin/alias', target: 'tool' },
    { type: 'directory', path: 'tmp', mode: 0o1777 },
    { type: 'directory', path: longDir },
    { type: 'file', path: `${longDir}/${'f'.repeat(90)}`, data: Buffer.alloc(1000, 'x') },
  ];
  const archive = tarArchive(entries);
  t.equal(archive.length % 512, 0, 'whole blocks');
  const dir = tempDir(t);
  fs.writeFileSync(path.join(dir, 'a.tar'), archive);
  fs.mkdirSync(path.join(dir, 'out'));
  execFileSync('tar', ['-xf', path.join(dir, 'a.tar'), '-C', path.join(dir, 'out')]);
  const out = (p: string): string => path.join(dir, 'out', p);
  t.equal(fs.readFileSync(out('bin/tool'), 'utf8'), '#!/bin/sh\necho tool\n');
  t.equal(fs.statSync(out('bin/tool')).mode & 0o777, 0o755);
  t.equal(fs.readlinkSync(out('bin/alias')), 'tool');
  t.equal(fs.statSync(out('tmp')).mode & 0o7777, 0o1777, 'sticky bit kept');
  t.equal(fs.readFileSync(out(`${longDir}/${'f'.repeat(90)}`)).length, 1000, 'a path over 100 bytes, split into the ustar prefix');
  t.same(tarArchive(entries), archive, 'same entries, same bytes');
  t.throws(() => tarArchive([{ type: 'file', path: 'x'.repeat(120), data: Buffer.alloc(0) }]), /too long/);
});

t.test('OCI archives: layout, digests and names as containerd reads them', async (t) => {
  const image = {
    name: 'example.com/team/tool:1.0',
    layers: [[{ type: 'file' as const, path: 'hello', data: Buffer.from('hi') }]],
    config: { entrypoint: ['/hello'], env: ['A=b'] },
    architecture: 'amd64',
  };
  const { archive, manifestDigest } = ociArchive(image);
  t.same(ociArchive(image).archive, archive, 'reproducible');
  const dir = tempDir(t);
  fs.writeFileSync(path.join(dir, 'image.tar'), archive);
  execFileSync('tar', ['-xf', path.join(dir, 'image.tar'), '-C', dir]);
  const blob = (digest: string): Buffer => fs.readFileSync(path.join(dir, 'blobs', 'sha256', digest.slice('sha256:'.length)));

  t.same(JSON.parse(fs.readFileSync(path.join(dir, 'oci-layout'), 'utf8')), { imageLayoutVersion: '1.0.0' });
  const index = JSON.parse(fs.readFileSync(path.join(dir, 'index.json'), 'utf8'));
  t.equal(index.manifests.length, 1);
  const entry = index.manifests[0];
  t.equal(entry.digest, manifestDigest);
  t.same(entry.platform, { architecture: 'amd64', os: 'linux' });
  t.same(entry.annotations, { 'io.containerd.image.name': 'example.com/team/tool:1.0', 'org.opencontainers.image.ref.name': '1.0' });

  const manifestBytes = blob(entry.digest);
  t.equal(sha256(manifestBytes), entry.digest, 'the manifest blob is named by its digest');
  t.equal(manifestBytes.length, entry.size);
  const manifest = JSON.parse(manifestBytes.toString());
  t.equal(manifest.mediaType, MEDIA_TYPES.manifest);
  const configBytes = blob(manifest.config.digest);
  t.equal(sha256(configBytes), manifest.config.digest);
  const config = JSON.parse(configBytes.toString());
  t.same(config.config, { Env: ['A=b'], Entrypoint: ['/hello'] });
  t.equal(config.os, 'linux');

  const layerBytes = blob(manifest.layers[0].digest);
  t.equal(sha256(layerBytes), manifest.layers[0].digest);
  t.equal(manifest.layers[0].mediaType, MEDIA_TYPES.layerGzip);
  t.same(config.rootfs, { type: 'layers', diff_ids: [sha256(zlib.gunzipSync(layerBytes))] }, 'diff_ids are digests of the uncompressed layers');

  t.equal(referenceTag('busybox'), 'latest');
  t.equal(referenceTag('localhost:5000/busybox'), 'latest', 'a registry port is not a tag');
  t.equal(referenceTag('k8s.gcr.io/pause:3.2'), '3.2');
});

t.test('runtime endpoints', async (t) => {
  t.equal(criTarget('unix:///run/containerd/containerd.sock'), 'unix:///run/containerd/containerd.sock');
  t.equal(criTarget('/run/containerd/containerd.sock'), 'unix:///run/containerd/containerd.sock', 'a bare path, as kubelet 1.20 still took');
  t.throws(() => criTarget('tcp://127.0.0.1:1234'), /protocol "tcp" not supported, only unix/);
  t.throws(() => criTarget('unix://relative.sock'), /must be absolute/);
  t.throws(() => criTarget('containerd.sock'), /expected unix:\/\/\/path\/to\/socket/);
});

t.test('CriError: the call, the status, grpc-go wording', async (t) => {
  const err = new CriError('ImageService/PullImage', GrpcStatus.UNKNOWN, 'failed to resolve reference');
  t.equal(err.message, 'ImageService/PullImage: rpc error: code = Unknown desc = failed to resolve reference');
  t.equal(err.rpcMessage, 'rpc error: code = Unknown desc = failed to resolve reference');
  t.equal(new CriError('RuntimeService/Version', GrpcStatus.DEADLINE_EXCEEDED, 'Deadline exceeded').rpcMessage, 'rpc error: code = DeadlineExceeded desc = Deadline exceeded');
  t.ok(err instanceof Error);
});

t.test('a call to a socket nobody serves fails as Unavailable, under its deadline', async (t) => {
  const dir = tempDir(t);
  const client = new RuntimeServiceClient({ endpoint: `unix://${dir}/none.sock`, timeoutMs: 2000 });
  t.teardown(() => client.close());
  const started = Date.now();
  const err = await client.version().then(
    () => undefined,
    (e: unknown) => e,
  );
  t.type(err, CriError);
  t.ok([GrpcStatus.UNAVAILABLE, GrpcStatus.DEADLINE_EXCEEDED].includes((err as CriError).code), 'Unavailable or DeadlineExceeded');
  t.match((err as CriError).message, /^RuntimeService\/Version: rpc error: code = (Unavailable|DeadlineExceeded) desc = /);
  t.ok(Date.now() - started < 5000, 'within the deadline');
});
