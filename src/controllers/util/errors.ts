/** How controllers word and classify the API errors they meet. */

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** a namespace being deleted refuses new objects: not worth an event or a retry (kube's NamespaceTerminatingCause) */
export function isNamespaceTerminating(err: unknown): boolean {
  return errorMessage(err).includes('because it is being terminated');
}
