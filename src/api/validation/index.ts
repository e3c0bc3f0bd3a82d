/** metadata, name and label validation shared by every kind (kube's apimachinery validation) */
export {
  isDNS1123Label,
  isDNS1123Subdomain,
  isDNS1035Label,
  isQualifiedName,
  isValidLabelValue,
  isConfigMapKey,
  isCIdentifier,
  isEnvVarName,
  isValidPortName,
  isValidPortNum,
  isValidPercent,
  isValidIP,
  validateName,
} from './names';
export type { NameValidation } from './names';
export { validateObjectMeta, validateObjectMetaUpdate, validateLabels, validateAnnotations, TOTAL_ANNOTATION_SIZE_LIMIT } from './object-meta';
export type { ObjectMetaValidationOptions } from './object-meta';
export { required, invalid, notSupported, duplicate, forbidden, notFound, tooLong, immutable, formatValue } from './field-errors';
