/**
 * withAccessReviews: a Registry decorator that answers the review kinds (see kinds.ts) in memory,
 * as kube's review REST endpoints do, and passes every other kind through untouched. Creating an
 * access review runs the decoder's checks, kube's validation, asks the authorizer, and returns the
 * review with its status (201, never stored); SelfSubjectRulesReview asks the authorizer for the
 * caller's rules, TokenReview the token authenticator, SelfSubjectReview the user provider. Any
 * other verb on a review is 405.
 */
import { withVerbs } from '../registry/with-verbs';
import { ApiError, errors } from '../errors';
import type { KindDefinition, KubeObject } from '../kind';
import { isObj } from '../kinds/util';
import { apiVersionOf } from '../scheme';
import type { Registry, Target, WriteOptions, WriteResult } from '../registry/types';
import type { Definitions } from '../../schema/types';
import { attributesOf, specAsV1, statusOf, subjectOf } from './attributes';
import type { RequestUserProvider, TokenAuthenticator } from './authenticator';
import { FixedUserProvider } from './authenticator';
import type { Authorizer, Decision, UserInfo } from './authorizer';
import { answerRulesReview, answerSelfSubjectReview, answerTokenReview } from './identity-reviews';
import { reviewKindOf } from './kinds';
import { ReviewSchema } from './review-schema';
import { validateReview } from './validation';

export interface AccessReviewsOptions {
  /** decides every review (the server's configured authorizer) */
  authorizer: Authorizer;
  /** schema definitions for the decoder's type and unknown-field checks of review bodies; skipped when absent */
  definitions?: Definitions;
  /** answers TokenReviews; without one they come back unanswered, as kube's do */
  tokenAuthenticator?: TokenAuthenticator;
  /** the audiences of TokenReviews that name none (kube's --api-audiences) */
  apiAudiences?: string[];
  /** the caller of self reviews; default: the admin client certificate's user */
  users?: RequestUserProvider;
}

/** kube's NewMethodNotSupported for a review resource, as the HTTP layer words it too */
function notSupported(kind: KindDefinition, verb: string): ApiError {
  return new ApiError(405, 'MethodNotAllowed', `${verb} is not supported on resources of kind "${kind.resource}.${kind.group}"`, {
    group: kind.group,
    kind: kind.resource,
  });
}

/** the review answering side: validation, the authorizer's decision, the response object */
class AccessReviews {
  readonly #authorizer: Authorizer;
  readonly #schema: ReviewSchema | undefined;
  readonly #tokenAuthenticator: TokenAuthenticator | undefined;
  readonly #apiAudiences: string[];
  readonly #users: RequestUserProvider;

  constructor(opts: AccessReviewsOptions) {
    this.#authorizer = opts.authorizer;
    this.#schema = opts.definitions ? new ReviewSchema(opts.definitions) : undefined;
    this.#tokenAuthenticator = opts.tokenAuthenticator;
    this.#apiAudiences = opts.apiAudiences ?? [];
    this.#users = opts.users ?? new FixedUserProvider();
  }

  async create(target: Target, body: KubeObject, options: WriteOptions): Promise<WriteResult> {
    const { kind } = target;
    const obj = this.#decode(kind, body);
    const warnings = this.#schema?.check(kind, obj, options) ?? [];
    const meta = obj.metadata as Record<string, unknown>;
    const kindName = reviewKindOf(kind)!;

    // kube's create handler fills an unset namespace from the URL and refuses another one
    const requestNamespace = kind.namespaced ? (target.namespace ?? '') : '';
    const bodyNamespace = typeof meta.namespace === 'string' ? meta.namespace : '';
    if (bodyNamespace === '' && requestNamespace !== '') meta.namespace = requestNamespace;
    else if (bodyNamespace !== requestNamespace) {
      if (requestNamespace === '') delete meta.namespace;
      else throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }

    // the caller of the request when the server authenticates, else the provider's fixed user
    const caller = options.user ?? this.#users.currentUser();
    const answered = await this.#answerOther(kindName, obj, caller);
    if (answered) return warnings.length > 0 ? { object: answered, created: true, warnings } : { object: answered, created: true };

    // validation and the authorizer read the v1 form of the spec (v1beta1 names the groups `group`)
    const asV1 = { ...obj, spec: specAsV1(obj.spec as Record<string, unknown>, kind.version) };
    const causes = validateReview(kindName as 'SelfSubjectAccessReview', asV1);
    if (causes.length > 0) throw errors.invalid(kindName, kind.group, '', causes);
    if (kind.namespaced && requestNamespace === '') throw errors.badRequest(`namespace is required on this type: ${requestNamespace}`);

    const spec = obj.spec as Record<string, unknown>;
    const user = kindName === 'SelfSubjectAccessReview' ? caller : subjectOf(asV1.spec);
    let decision: Decision;
    try {
      decision = await this.#authorizer.authorize(attributesOf(asV1.spec, user));
    } catch (err) {
      // kube reports an authorizer failure in the review, not as a failed request
      decision = { allowed: false, evaluationError: err instanceof Error ? err.message : String(err) };
    }
    // system fields never apply to a review: the answer carries the request's metadata back
    delete meta.managedFields;
    const object: KubeObject = { apiVersion: obj.apiVersion, kind: obj.kind, metadata: meta, spec, status: statusOf(decision) };
    return warnings.length > 0 ? { object, created: true, warnings } : { object, created: true };
  }

  /** the answer of a review that is not an access review, or undefined for an access review */
  async #answerOther(kindName: string, obj: KubeObject, caller: UserInfo): Promise<KubeObject | undefined> {
    switch (kindName) {
      case 'TokenReview':
        return answerTokenReview(obj, this.#tokenAuthenticator, this.#apiAudiences);
      case 'SelfSubjectReview':
        return answerSelfSubjectReview(obj, caller);
      case 'SelfSubjectRulesReview':
        return answerRulesReview(obj, this.#authorizer, caller);
      default:
        return undefined;
    }
  }

  /** the body as a review object: an object of the review's apiVersion and kind, with metadata and spec */
  #decode(kind: KindDefinition, body: unknown): KubeObject {
    if (!isObj(body)) throw errors.badRequest('the body of the request must be a JSON object');
    const obj = structuredClone(body) as KubeObject;
    const apiVersion = apiVersionOf(kind);
    if (obj.apiVersion !== undefined && obj.apiVersion !== '' && obj.apiVersion !== apiVersion) {
      throw errors.badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${apiVersion})`);
    }
    if (obj.kind !== undefined && obj.kind !== '' && obj.kind !== kind.kind) {
      throw errors.badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${kind.kind})`);
    }
    obj.apiVersion = apiVersion;
    obj.kind = kind.kind;
    if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
    if (!isObj(obj.metadata)) throw errors.badRequest('metadata must be an object');
    if (obj.spec === undefined || obj.spec === null) obj.spec = {};
    return obj;
  }
}

/**
 * wrap a registry so the access review kinds are answered by `opts.authorizer`. The result has
 * everything the wrapped registry has (lifecycle methods included); only the Registry verbs on
 * review kinds behave differently.
 */
export function withAccessReviews<R extends Registry>(registry: R, opts: AccessReviewsOptions): R {
  const reviews = new AccessReviews(opts);
  const isReview = (t: Target): boolean => reviewKindOf(t.kind) !== undefined;
  const refuse = (t: Target, verb: string): Promise<never> => Promise.reject(notSupported(t.kind, verb));
  const verbs: Registry = {
    get: (t, o) => (isReview(t) ? refuse(t, 'get') : registry.get(t, o)),
    list: (t, o) => (isReview(t) ? refuse(t, 'list') : registry.list(t, o)),
    watch: (t, o, sink) => (isReview(t) ? refuse(t, 'watch') : registry.watch(t, o, sink)),
    create: (t, body, o) => (isReview(t) ? reviews.create(t, body, o) : registry.create(t, body, o)),
    update: (t, body, o) => (isReview(t) ? refuse(t, 'update') : registry.update(t, body, o)),
    patch: (t, type, body, o) => (isReview(t) ? refuse(t, 'patch') : registry.patch(t, type, body, o)),
    delete: (t, o) => (isReview(t) ? refuse(t, 'delete') : registry.delete(t, o)),
    deleteCollection: (t, l, o) => (isReview(t) ? refuse(t, 'deletecollection') : registry.deleteCollection(t, l, o)),
    getStatus: (t, o) => (isReview(t) ? refuse(t, 'get') : registry.getStatus(t, o)),
    updateStatus: (t, body, o) => (isReview(t) ? refuse(t, 'update') : registry.updateStatus(t, body, o)),
    patchStatus: (t, type, body, o) => (isReview(t) ? refuse(t, 'patch') : registry.patchStatus(t, type, body, o)),
    getScale: (t, o) => (isReview(t) ? refuse(t, 'get') : registry.getScale(t, o)),
    updateScale: (t, body, o) => (isReview(t) ? refuse(t, 'update') : registry.updateScale(t, body, o)),
    patchScale: (t, type, body, o) => (isReview(t) ? refuse(t, 'patch') : registry.patchScale(t, type, body, o)),
    getSubresource: (t, n, o) => (isReview(t) ? refuse(t, 'get') : registry.getSubresource(t, n, o)),
    updateSubresource: (t, n, body, o) => (isReview(t) ? refuse(t, 'update') : registry.updateSubresource(t, n, body, o)),
    patchSubresource: (t, n, type, body, o) => (isReview(t) ? refuse(t, 'patch') : registry.patchSubresource(t, n, type, body, o)),
    createSubresource: (t, n, body, o) => (isReview(t) ? refuse(t, 'create') : registry.createSubresource(t, n, body, o)),
  };
  // everything else (bootstrap, close, idle, ...) is the wrapped registry's own
  return withVerbs(registry, verbs);
}
