/**
 * --admission-control-config-file: kube's AdmissionConfiguration (apiserver.config.k8s.io/v1, and
 * the older v1alpha1 and apiserver.k8s.io/v1alpha1 spellings of the same shape): plugins[] with a
 * name and either an inline `configuration` or a `path` to a file of its own (relative paths are
 * read from the configuration file's folder). Any problem stops start-up with one line naming the
 * file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { load } from 'js-yaml';
import { ORDERED_ADMISSION_PLUGINS } from './plugins';

const API_VERSIONS = new Set(['apiserver.config.k8s.io/v1', 'apiserver.config.k8s.io/v1alpha1', 'apiserver.k8s.io/v1alpha1']);

export class AdmissionConfigError extends Error {
  constructor(file: string, why: string) {
    super(`admission-control-config-file ${file}: ${why}`);
    this.name = 'AdmissionConfigError';
  }
}

function readYaml(file: string, configFile: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new AdmissionConfigError(configFile, `unable to read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    return load(text);
  } catch (err) {
    const mark = (err as { mark?: { line: number } }).mark;
    const where = mark ? ` (line ${mark.line + 1})` : '';
    throw new AdmissionConfigError(configFile, `${file}${where}: not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** the plugin configurations by plugin name, with the file each came from (for plugins' own errors) */
export class AdmissionConfigurations extends Map<string, unknown> {
  readonly sources = new Map<string, string>();
}

/** the plugin configurations by plugin name */
export function loadAdmissionConfig(file: string): AdmissionConfigurations {
  const doc = readYaml(file, file);
  if (!isObject(doc)) throw new AdmissionConfigError(file, 'expected an AdmissionConfiguration object');
  if (doc.kind !== 'AdmissionConfiguration' || typeof doc.apiVersion !== 'string' || !API_VERSIONS.has(doc.apiVersion)) {
    throw new AdmissionConfigError(file, `expected kind AdmissionConfiguration of apiVersion apiserver.config.k8s.io/v1, got ${String(doc.kind)} of ${String(doc.apiVersion)}`);
  }
  const plugins = doc.plugins ?? [];
  if (!Array.isArray(plugins)) throw new AdmissionConfigError(file, 'plugins must be a list');
  const configs = new AdmissionConfigurations();
  plugins.forEach((entry, i) => {
    if (!isObject(entry) || typeof entry.name !== 'string' || entry.name === '') {
      throw new AdmissionConfigError(file, `plugins[${i}].name: Required value`);
    }
    if (!ORDERED_ADMISSION_PLUGINS.includes(entry.name)) throw new AdmissionConfigError(file, `plugins[${i}]: unknown admission plugin "${entry.name}"`);
    if (entry.configuration !== undefined && entry.path !== undefined) {
      throw new AdmissionConfigError(file, `plugins[${i}] (${entry.name}): path and configuration are mutually exclusive`);
    }
    if (entry.path !== undefined) {
      if (typeof entry.path !== 'string' || entry.path === '') throw new AdmissionConfigError(file, `plugins[${i}].path must be a file name`);
      const own = path.resolve(path.dirname(file), entry.path);
      configs.set(entry.name, readYaml(own, file));
      configs.sources.set(entry.name, own);
    } else {
      configs.set(entry.name, entry.configuration);
      configs.sources.set(entry.name, file);
    }
  });
  return configs;
}
