#!/usr/bin/env node
/*
 * Regenerates proto/k8s/*.proto from the facts of kube's wire format.
 *
 * Input: a directory laid out like kube's import paths (k8s.io/api/<group>/<version>/generated.proto,
 * k8s.io/apimachinery/pkg/.../generated.proto) and, under go/, the Go sources of the same packages
 * (types.go and friends). Taken from them: message names, field names, numbers and wire types, and
 * from the Go struct tags how each field behaves in JSON (pointer or value, omitempty, inlined).
 * Written: one file per package, only the messages Ballast's schemas reach, with Ballast's own
 * field options (see ballast/options.proto) and no upstream prose.
 *
 *   node proto/k8s/tools/generate.js <kube-proto-root>
 *
 * The root used for today's files is the union of two releases of kube's API modules (k8s.io/api,
 * k8s.io/apimachinery, k8s.io/apiextensions-apiserver, k8s.io/kube-aggregator): v0.33.13 for every
 * package it has, plus, per package, the messages (and Go structs) that only v0.20.15 still has
 * (extensions/v1beta1, policy/v1beta1 PodSecurityPolicy, batch/v2alpha1, flowcontrol/v1alpha1, ...).
 * The Go sources of apiextensions-apiserver and kube-aggregator sit under go/k8s.io/apiextensions_apiserver
 * and go/k8s.io/kube_aggregator, as their proto packages spell them. Run `npx tsc` first: the seeds
 * come from dist/src/schema.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const protobuf = require('protobufjs');

const root = process.argv[2];
if (!root) throw new Error('usage: generate.js <dir with k8s.io/... generated.proto and go/ sources>');
const outDir = path.join(__dirname, '..');
const repoRoot = path.join(outDir, '..', '..');

// ---- 1. kube's messages, parsed as protobuf reflection
const pb = new protobuf.Root();
pb.resolvePath = (_origin, target) => (path.isAbsolute(target) ? target : path.join(root, target));
const protoFiles = [];
for (const dir of walk(root)) if (dir.endsWith('generated.proto') && !dir.includes(`${path.sep}go${path.sep}`)) protoFiles.push(dir);
pb.loadSync(protoFiles, { keepCase: true, alternateCommentMode: true });
pb.resolveAll();

function* walk(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else yield p;
  }
}

// ---- 2. Go struct tags: package dir -> struct -> proto field number -> facts
const goFacts = new Map();
for (const file of walk(path.join(root, 'go'))) {
  if (!file.endsWith('.go')) continue;
  const pkgDir = path.dirname(path.relative(path.join(root, 'go'), file));
  const pkgName = pkgDir.split(path.sep).join('.').replace(/\//g, '.');
  const text = fs.readFileSync(file, 'utf8');
  const structRe = /^type (\w+) struct \{\n([\s\S]*?)^\}/gm;
  for (const m of text.matchAll(structRe)) {
    const fields = new Map();
    for (const rawLine of m[2].split('\n')) {
      const line = rawLine.trim();
      if (line.startsWith('//')) continue;
      const named = /^(\w+)\s+(\S+)\s+`([^`]*)`/.exec(line);
      const embedded = /^(\S+)\s+`([^`]*)`/.exec(line);
      const goType = named ? named[2] : embedded ? embedded[1] : undefined;
      const tags = named ? named[3] : embedded ? embedded[2] : undefined;
      if (!tags) continue;
      const proto = /protobuf:"([^"]*)"/.exec(tags);
      const json = /json:"([^"]*)"/.exec(tags);
      if (!proto || !json) continue;
      const num = Number(proto[1].split(',')[1]);
      const [jsonName, ...opts] = json[1].split(',');
      fields.set(num, {
        pointer: goType.startsWith('*'),
        collection: goType.startsWith('[]') || goType.startsWith('map['),
        omitempty: opts.includes('omitempty') || opts.includes('omitzero'),
        jsonName,
        inline: !named && jsonName === '',
      });
    }
    goFacts.set(`${pkgName}.${m[1]}`, fields);
  }
}

// ---- 3. the messages to keep: what our schemas name, the envelope and meta types, and all they reach
const { definitions } = require(path.join(repoRoot, 'dist/src/schema/index.js'));
// definition names -> proto names: io.k8s.api.apps.v1.X -> k8s.io.api.apps.v1.X; the Go module names with
// hyphens (apiextensions-apiserver, kube-aggregator) are underscores in proto packages
const protoName = (n) => n.replace(/^io\.k8s\.([^.]+)\./, (_m, mod) => `k8s.io.${mod.replace(/-/g, '_')}.`);
const seeds = Object.keys(definitions).map(protoName);
for (const extra of [
  'k8s.io.apimachinery.pkg.runtime.Unknown',
  'k8s.io.apimachinery.pkg.apis.meta.v1.Status',
  'k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent',
  'k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions',
  'k8s.io.apimachinery.pkg.apis.meta.v1.CreateOptions',
  'k8s.io.apimachinery.pkg.apis.meta.v1.UpdateOptions',
  'k8s.io.apimachinery.pkg.apis.meta.v1.PatchOptions',
  'k8s.io.apimachinery.pkg.apis.meta.v1.GetOptions',
  'k8s.io.apimachinery.pkg.apis.meta.v1.ListOptions',
  'k8s.io.apimachinery.pkg.apis.meta.v1.List',
  'k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadata',
  'k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadataList',
  'k8s.io.apimachinery.pkg.apis.meta.v1.APIVersions',
  'k8s.io.apimachinery.pkg.apis.meta.v1.APIGroupList',
  'k8s.io.apimachinery.pkg.apis.meta.v1.APIGroup',
  'k8s.io.apimachinery.pkg.apis.meta.v1.APIResourceList',
]) seeds.push(extra);
// every kind's list type
for (const s of [...seeds]) if (pb.lookup(s + 'List')) seeds.push(s + 'List');

const keep = new Map();
const missing = [];
const queue = [...seeds];
while (queue.length) {
  const name = queue.pop();
  if (keep.has(name)) continue;
  const t = pb.lookup(name);
  if (!(t instanceof protobuf.Type)) {
    missing.push(name);
    continue;
  }
  keep.set(name, t);
  for (const f of t.fieldsArray) if (f.resolvedType) queue.push(f.resolvedType.fullName.slice(1));
}

// ---- 4. write one file per package
const fileOf = (pkg) =>
  pkg
    .replace(/^k8s\.io\.api\./, '')
    .replace(/^k8s\.io\.apiextensions_apiserver\.pkg\.apis\./, '')
    .replace(/^k8s\.io\.kube_aggregator\.pkg\.apis\./, '')
    .replace(/^k8s\.io\.apimachinery\.pkg\.apis\./, '')
    .replace(/^k8s\.io\.apimachinery\.pkg\./, '')
    .replace(/\./g, '-') + '.proto';
const byPkg = new Map();
for (const [name, t] of keep) {
  const pkg = name.slice(0, name.lastIndexOf('.'));
  if (!byPkg.has(pkg)) byPkg.set(pkg, []);
  byPkg.get(pkg).push(t);
}
const warnings = [];
const SPECIAL = new Set(['Time', 'MicroTime', 'Duration', 'Quantity', 'IntOrString', 'RawExtension', 'FieldsV1', 'Unknown', 'TypeMeta', 'Timestamp']);

for (const [pkg, types] of [...byPkg].sort()) {
  types.sort((a, b) => a.name.localeCompare(b.name));
  const deps = new Set();
  const out = [];
  out.push('// Ballast: the protobuf wire shape of ' + pkg + ', as kube serves it.');
  out.push('// Generated by proto/k8s/tools/generate.js from kube\'s field facts; field options are Ballast\'s');
  out.push('// (ballast/options.proto) and say how each field maps to JSON.');
  out.push('syntax = "proto2";');
  out.push('');
  out.push(`package ${pkg};`);
  out.push('');
  const body = [];
  for (const t of types) {
    const facts = goFacts.get(t.fullName.slice(1).replace(/^k8s\.io\.(api|apimachinery)\./, 'k8s.io.$1.'));
    const isJsonList = /\+protobuf\.nullable=true/.test(t.comment ?? '');
    body.push(`message ${t.name} {`);
    if (isJsonList) body.push('  option (ballast.json_list) = true;');
    for (const f of t.fieldsArray) {
      let type = f.type;
      if (f.resolvedType) {
        const full = f.resolvedType.fullName.slice(1);
        const fpkg = full.slice(0, full.lastIndexOf('.'));
        if (fpkg !== pkg) deps.add(fpkg);
        type = '.' + full;
      }
      const opts = [];
      const fact = SPECIAL.has(t.name) ? undefined : facts?.get(f.id);
      if (!fact && !SPECIAL.has(t.name) && !isJsonList) warnings.push(`no Go facts for ${t.fullName}.${f.name}`);
      if (fact) {
        if (fact.inline) opts.push('(ballast.inline) = true');
        else if (fact.jsonName !== f.name) opts.push(`json_name = "${fact.jsonName}"`);
        if (!fact.inline && !fact.collection) {
          if (fact.pointer) opts.push('(ballast.go) = "pointer"');
          else if (!fact.omitempty) opts.push('(ballast.go) = "value"');
        } else if (fact.collection && !fact.omitempty) opts.push('(ballast.go) = "value"');
      }
      const suffix = opts.length ? ` [${opts.join(', ')}]` : '';
      if (f.map) body.push(`  map<${f.keyType}, ${type}> ${f.name} = ${f.id}${suffix};`);
      else body.push(`  ${f.repeated ? 'repeated' : 'optional'} ${type} ${f.name} = ${f.id}${suffix};`);
    }
    body.push('}');
    body.push('');
  }
  out.push('import "ballast/options.proto";');
  for (const d of [...deps].sort()) out.push(`import "${fileOf(d)}";`);
  out.push('');
  fs.writeFileSync(path.join(outDir, fileOf(pkg)), out.join('\n') + body.join('\n'));
}
console.log(`kept ${keep.size} messages in ${byPkg.size} files`);
if (missing.length) console.log('not in kube protobuf (JSON-only or non-message):', missing.join(', '));
for (const w of warnings) console.log('warning:', w);
