/**
 * AlwaysAdmit and AlwaysDeny (kube's plugin/pkg/admission/admit and deny): test plugins that let
 * everything through or refuse every write. AlwaysDeny refuses what clients ask; the writes the
 * server makes on its own behalf (no user: APIService registration, bootstrap) still pass, so the
 * server can start and serve reads (kube's would stay unready).
 */
import type { Admission } from '../types';
import { admissionForbidden } from '../forbidden';
import { admitsEverything } from '../plugins';

export function alwaysAdmit(): Admission {
  return admitsEverything;
}

export function alwaysDeny(): Admission {
  const refuse = async (a: Parameters<Admission['admit']>[0]) => {
    if (!a.user) return;
    throw admissionForbidden(a, 'admission control is denying all modifications');
  };
  return { admit: refuse, validate: refuse };
}
