/**
 * Reading `--config`: a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1beta1) in YAML
 * or JSON, decoded strictly as kube's scheduler scheme does, defaulted and validated. Any problem
 * is one ConfigError line naming the file and the field.
 */
import { readFileSync } from 'node:fs';
import yaml from 'js-yaml';
import type { FeatureGates } from '../../options/feature-gates';
import { defaultConfiguration, type DecodedConfiguration } from './defaults';
import { aggregate } from './field-errors';
import { hasArgsType } from './plugin-args';
import { ARGS_SHAPES, CONFIG_SHAPE, decodeShape } from './schema';
import { CONFIG_API_VERSION, CONFIG_KIND, ConfigError } from './types';
import type { KubeSchedulerConfiguration } from './types';
import { validateConfiguration } from './validation';

const SCHEME = 'k8s.io/kubernetes/pkg/scheduler/apis/config/scheme/scheme.go:30';

/** parse YAML or JSON into one document (a parse error is a ConfigError) */
export function parseDocument(text: string): unknown {
  try {
    return yaml.load(text);
  } catch (err) {
    throw new ConfigError(`error converting YAML to JSON: ${(err as Error).message.split('\n')[0]}`);
  }
}

/** kube's type-meta checks: both present, and a kind this version registers */
export function checkTypeMeta(doc: unknown, apiVersion: string, kind: string): void {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new ConfigError(`couldn't get version/kind; json parse error: document is not an object`);
  const d = doc as Record<string, unknown>;
  const compact = JSON.stringify(d).slice(0, 80);
  if (typeof d.apiVersion !== 'string' || d.apiVersion === '') throw new ConfigError(`Object 'apiVersion' is missing in '${compact}'`);
  if (typeof d.kind !== 'string' || d.kind === '') throw new ConfigError(`Object 'Kind' is missing in '${compact}'`);
  if (d.apiVersion !== apiVersion || d.kind !== kind) {
    throw new ConfigError(`no kind "${d.kind}" is registered for version "${d.apiVersion}" in scheme "${SCHEME}"`);
  }
}

/** strict decoding of the document and of the args of plugins with a known args type */
export function decodeConfiguration(doc: unknown): DecodedConfiguration {
  checkTypeMeta(doc, CONFIG_API_VERSION, CONFIG_KIND);
  const decoded = decodeShape(doc, CONFIG_SHAPE, '') as DecodedConfiguration & { apiVersion?: string; kind?: string };
  delete decoded.apiVersion;
  delete decoded.kind;
  for (const [i, profile] of (decoded.profiles ?? []).entries()) {
    for (const [j, pc] of (profile.pluginConfig ?? []).entries()) {
      const path = `profiles[${i}].pluginConfig[${j}].args`;
      if (pc.args === undefined) continue;
      if (!hasArgsType(pc.name)) {
        // out-of-tree or argument-less plugin: kept as given
        if (typeof pc.args !== 'object' || Array.isArray(pc.args)) throw new ConfigError(`${path}: args must be an object`);
        continue;
      }
      const wanted = `${pc.name}Args`;
      if (pc.args.kind !== undefined && pc.args.kind !== wanted) {
        throw new ConfigError(`args for plugin ${pc.name} were not of type ${wanted}.kubescheduler.config.k8s.io, got ${String(pc.args.kind)}.kubescheduler.config.k8s.io`);
      }
      if (pc.args.apiVersion !== undefined && pc.args.apiVersion !== CONFIG_API_VERSION) {
        throw new ConfigError(`decoding args for plugin ${pc.name}: no kind "${wanted}" is registered for version "${String(pc.args.apiVersion)}" in scheme "${SCHEME}"`);
      }
      try {
        pc.args = decodeShape(pc.args, ARGS_SHAPES[pc.name], path, ['apiVersion', 'kind']) as Record<string, unknown>;
      } catch (err) {
        throw new ConfigError(`decoding args for plugin ${pc.name}: ${(err as Error).message}`);
      }
    }
  }
  return decoded;
}

/** decode, default and validate configuration text; throws ConfigError without the file name */
export function configurationFromText(text: string, gates: FeatureGates): KubeSchedulerConfiguration {
  const cfg = defaultConfiguration(decodeConfiguration(parseDocument(text)), gates);
  const errs = validateConfiguration(cfg);
  if (errs.length > 0) throw new ConfigError(aggregate(errs));
  return cfg;
}

/** read `--config`; every error is one line: `invalid configuration file "<file>": <why>` */
export function loadConfigFile(file: string, gates: FeatureGates): KubeSchedulerConfiguration {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`unable to read config file "${file}": ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    return configurationFromText(text, gates);
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError(`invalid configuration file "${file}": ${err.message}`);
    throw err;
  }
}
