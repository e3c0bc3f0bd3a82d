/** kube's ValidateCSIDriverName: required, at most 63 characters, a DNS subdomain once lowercased. */
import type { StatusCause } from '../../errors';
import { invalid, required, tooLong } from '../../validation/field-errors';
import { isDNS1123Subdomain } from '../../validation/names';

const MAX_DRIVER_NAME = 63;

export function validateCsiDriverName(name: string, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (name === '') causes.push(required(field, ''));
  if (name.length > MAX_DRIVER_NAME) causes.push(tooLong(field, MAX_DRIVER_NAME));
  for (const msg of isDNS1123Subdomain(name.toLowerCase())) causes.push(invalid(field, name, msg));
  return causes;
}
