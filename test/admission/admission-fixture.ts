/** a registry over a fresh store with an admission chain of the given plugins, bound as the server binds it */
import { makeFixture } from '../helpers/registry-fixture';
import type { Fixture } from '../helpers/registry-fixture';
import { Scheme } from '../../src/api/scheme';
import { builtinKinds } from '../../src/api/kinds';
import { buildAdmission } from '../../src/admission/index';
import type { AdmissionSetup } from '../../src/admission/index';
import type { AdmissionChain } from '../../src/admission/chain';

export interface AdmissionFixture extends Fixture {
  chain: AdmissionChain;
}

export async function admissionFixture(enabled: string[], extra: Partial<AdmissionSetup> = {}): Promise<AdmissionFixture> {
  // the plugins resolve kinds by resource; the fixture's scheme serves the same built-in kinds
  const { chain, objects } = buildAdmission({ scheme: new Scheme(builtinKinds()), enabled, ...extra });
  const f = await makeFixture('memory', { admission: chain, bootstrap: false });
  objects.bind(f.registry);
  await f.registry.bootstrap();
  return { ...f, chain };
}
