/** kube's field.Path rendering: `.child`, `[key]`, `[index]`; the root is '' */
export const child = (path: string, name: string): string => (path ? `${path}.${name}` : name);
export const key = (path: string, k: string): string => `${path}[${k}]`;
export const index = (path: string, i: number): string => `${path}[${i}]`;
