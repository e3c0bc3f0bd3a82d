/**
 * The admission chain: the enabled plugins in kube's fixed order. Every mutating phase runs before
 * any validating one (kube's chainAdmissionHandler is called twice by the registry: Admit, then
 * Validate); the first refusal stops the request.
 */
import type { Admission, AdmissionAttributes } from './types';

export interface NamedAdmission {
  readonly name: string;
  readonly plugin: Admission;
}

export class AdmissionChain implements Admission {
  readonly #plugins: readonly NamedAdmission[];

  constructor(plugins: readonly NamedAdmission[]) {
    this.#plugins = Object.freeze([...plugins]);
  }

  /** the plugin names, in the order they run */
  get names(): string[] {
    return this.#plugins.map((p) => p.name);
  }

  async admit(attributes: AdmissionAttributes): Promise<void> {
    for (const { plugin } of this.#plugins) await plugin.admit(attributes);
  }

  async validate(attributes: AdmissionAttributes): Promise<void> {
    for (const { plugin } of this.#plugins) await plugin.validate(attributes);
  }
}

/** a plugin that only mutates */
export function mutating(admit: (a: AdmissionAttributes) => Promise<void> | void): Admission {
  return { admit: async (a) => admit(a), validate: async () => undefined };
}

/** a plugin that only validates */
export function validating(validate: (a: AdmissionAttributes) => Promise<void> | void): Admission {
  return { admit: async () => undefined, validate: async (a) => validate(a) };
}
