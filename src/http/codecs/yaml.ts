/** application/yaml: accepted in request bodies and served on `Accept: application/yaml` (not for watch) */
import { dump, load } from 'js-yaml';
import { errors } from '../../api/errors';
import type { Codec } from './codec';

interface YamlError {
  reason?: string;
  mark?: { line: number };
  message: string;
}

export const yamlCodec: Codec = {
  mediaType: 'application/yaml',
  decode(body) {
    try {
      return load(body.toString('utf8'));
    } catch (err) {
      // kube converts YAML to JSON first: `error converting YAML to JSON: yaml: line N: reason`
      const e = err as YamlError;
      const where = e.mark ? `line ${e.mark.line + 1}: ` : '';
      throw errors.badRequest(`error converting YAML to JSON: yaml: ${where}${e.reason ?? e.message}`);
    }
  },
  encode(value) {
    return Buffer.from(dump(value, { noRefs: true, lineWidth: -1 }));
  },
};
