/** How deep a decoded request body may nest: one limit for every body, checked without recursion. */

/**
 * The deepest nesting a decoded body may have. kube's JSON decoder stops at 10000 levels; ours is
 * lower because later stages (defaulting, clones, patches) walk objects recursively, and no served
 * kind comes near it (a Deployment is about 15 levels deep).
 */
export const MAX_NESTING_DEPTH = 1000;

/** depth of nested objects and arrays in value, counted without recursion; stops once past limit */
export function nestingDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > deepest) deepest = depth;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return deepest;
}
