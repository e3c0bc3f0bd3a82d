/**
 * AlwaysAdmit and AlwaysDeny (kube's plugin/pkg/admission/admit and deny): test plugins that let
 * everything through or refuse every write.
 */
import type { Admission } from '../types';
import { admissionForbidden } from '../forbidden';
import { admitsEverything } from '../plugins';

export function alwaysAdmit(): Admission {
  return admitsEverything;
}

export function alwaysDeny(): Admission {
  const refuse = async (a: Parameters<Admission['admit']>[0]) => {
    throw admissionForbidden(a, 'admission control is denying all modifications');
  };
  return { admit: refuse, validate: refuse };
}
