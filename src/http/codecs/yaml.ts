/** application/yaml: accepted in request bodies and served on `Accept: application/yaml` (not for watch) */
import { dump, load } from 'js-yaml';
import { errors } from '../../api/errors';
import type { Codec } from './codec';
import { withStrictDecodingErrors, yamlStrictErrors } from './duplicate-fields';

interface YamlError {
  reason?: string;
  mark?: { line: number };
  message: string;
}

export const yamlCodec: Codec = {
  mediaType: 'application/yaml',
  decode(body) {
    const text = body.toString('utf8');
    let value: unknown;
    try {
      // json: a repeated key keeps its last value (kube's lenient YAML-to-JSON) instead of failing
      value = load(text, { json: true });
    } catch (err) {
      // kube converts YAML to JSON first: `error converting YAML to JSON: yaml: line N: reason`
      const e = err as YamlError;
      const where = e.mark ? `line ${e.mark.line + 1}: ` : '';
      throw errors.badRequest(`error converting YAML to JSON: yaml: ${where}${e.reason ?? e.message}`);
    }
    return withStrictDecodingErrors(value, yamlStrictErrors(text));
  },
  encode(value) {
    return Buffer.from(dump(value, { noRefs: true, lineWidth: -1 }));
  },
};
