/** label and field selectors: parse the query syntax, build from metav1.LabelSelector, match */
export { LabelSelector, formatLabelSelector, labelSelectorFromObject, parseLabelSelector } from './label-selector';
export type { LabelOperator, LabelRequirement, LabelSelectorObject, LabelSelectorRequirementObject } from './label-selector';
export { FieldSelector, checkFieldSelectorFields, escapeFieldValue, parseFieldSelector } from './field-selector';
export type { FieldRequirement } from './field-selector';
