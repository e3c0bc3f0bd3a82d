import { eachOf, oneOf, option } from './define';
import type { OptionGroup } from './types';
import { DEFAULT_ENABLED_ADMISSION_PLUGINS, ORDERED_ADMISSION_PLUGINS } from '../admission/plugins';

/** authentication options (spec 2, part 5) */
export const authenticationOptions: OptionGroup = Object.freeze({
  title: 'Authentication flags',
  options: [
    option('anonymous-auth', 'bool', 'let requests no authenticator rejects through as system:anonymous (group system:unauthenticated)', { default: 'true', supported: true }),
    option('client-ca-file', 'string', 'CA bundle: a client certificate it signs authenticates as the certificate\'s CommonName (groups: its Organizations). Default: the CA Ballast generates in --cert-dir when it generates the serving certificate', { supported: true }),
    option('token-auth-file', 'string', 'file of static bearer tokens: CSV lines token,user,uid[,"group1,group2"]', { supported: true }),
    option('enable-bootstrap-token-auth', 'bool', 'accept bootstrap tokens <id>.<secret>: the secret bootstrap-token-<id> of kube-system (type bootstrap.kubernetes.io/token) authenticates as system:bootstrap:<id> in system:bootstrappers', { supported: true }),
    option('api-audiences', 'stringSlice', 'audiences of this API; service account tokens must name one, and TokenRequests without audiences get these (default: the first --service-account-issuer)', { supported: true }),
    option('authentication-token-webhook-config-file', 'string', 'kubeconfig-format file of a webhook that checks bearer tokens (server, CA, client certificate or token of its current context): each token no earlier authenticator knows is POSTed as a TokenReview and the answer\'s user (name, uid, groups, extra) is the caller; a webhook that cannot be reached fails the request (401)', { supported: true }),
    option('authentication-token-webhook-version', 'string', 'TokenReview version (authentication.k8s.io/v1 or v1beta1) exchanged with that webhook', { default: 'v1beta1', validate: oneOf('v1', 'v1beta1'), supported: true }),
    option('authentication-token-webhook-cache-ttl', 'duration', 'how long webhook answers (authenticated or not) are cached, by token and audiences; errors are not cached', { default: '2m0s', supported: true }),
    option('oidc-issuer-url', 'string', 'HTTPS URL of the OpenID issuer whose ID tokens (JWTs with this iss) are accepted; its /.well-known/openid-configuration and jwks_uri are fetched in the background, retried until they answer, and the keys again when a token names an unknown key id', { supported: true }),
    option('oidc-client-id', 'string', 'client ID every token must name in its aud claim; needed with --oidc-issuer-url', { supported: true }),
    option('oidc-ca-file', 'string', 'CA that signed the identity provider\'s certificate (default: the host\'s roots)', { supported: true }),
    option('oidc-username-claim', 'string', 'token claim used as user name; with email, a token whose email_verified claim is false is refused', { default: 'sub', supported: true }),
    option('oidc-username-prefix', 'string', 'prefix added to user names; unset, claims other than email get "<issuer-url>#"; "-" adds none', { supported: true }),
    option('oidc-groups-claim', 'string', 'token claim holding the user\'s groups (a string or an array of strings)', { supported: true }),
    option('oidc-groups-prefix', 'string', 'prefix added to group names', { supported: true }),
    option('oidc-required-claim', 'mapStringString', 'claim=value that a token must carry (a string claim with that value); repeatable', { supported: true }),
    option('oidc-signing-algs', 'stringSlice', 'signing algorithms accepted in tokens (RS256/384/512, ES256/384/512, PS256/384/512)', { default: 'RS256', supported: true }),
    option('requestheader-client-ca-file', 'string', 'CA bundle of front proxies: a client certificate it signs may name the user in the --requestheader-* headers (checked before client certificates); published with the header names in the kube-system ConfigMap extension-apiserver-authentication', { supported: true }),
    option('requestheader-allowed-names', 'stringSlice', 'client certificate common names allowed to set those headers; empty allows any', { supported: true }),
    option('requestheader-username-headers', 'stringSlice', 'headers holding the user name, e.g. X-Remote-User (the first non-empty one names the user of a front-proxy request; none given: no front-proxy user); the first is the one sent to extension servers (X-Remote-User when empty)', { supported: true }),
    option('requestheader-group-headers', 'stringSlice', 'headers holding groups, e.g. X-Remote-Group (every value of each is a group); the first is the one sent to extension servers (X-Remote-Group when empty)', { supported: true }),
    option('requestheader-extra-headers-prefix', 'stringSlice', 'header prefixes holding extra user data, e.g. X-Remote-Extra- (the rest of the name, lower-cased and %-unescaped, is the key); the first is the one sent to extension servers (X-Remote-Extra- when empty)', { supported: true }),
    option('service-account-issuer', 'stringArray', 'issuer ("iss") of service account tokens; repeatable: the first one issues, all are accepted (to move to a new issuer). Default: https://kubernetes.default.svc.cluster.local', { supported: true }),
    option('service-account-signing-key-file', 'string', 'PEM private key (RSA -> RS256, ECDSA -> ES256/384/512) that signs service account tokens (TokenRequest, kubectl create token). Default: with no --service-account-key-file either, the key pair sa.key/sa.pub Ballast generates once in --cert-dir', { supported: true }),
    option('service-account-key-file', 'stringArray', 'PEM keys (public or private keys, certificates; RSA or ECDSA) that verify service account tokens; repeatable. The signing key always verifies too. Default: with --service-account-signing-key-file, that key and the --tls-private-key-file key (kube\'s default); with neither, the generated sa.pub in --cert-dir', { supported: true }),
    option('service-account-jwks-uri', 'string', 'jwks_uri announced in /.well-known/openid-configuration (default: https://<this server\'s address>/openid/v1/jwks)', { supported: true }),
    option('service-account-lookup', 'bool', 'legacy (secret-based) service account tokens must still be held by their secret, and their account exist; bound tokens are always checked against their account, pod or secret', { default: 'true', supported: true }),
    option('service-account-max-token-expiration', 'duration', 'longest lifetime of a token issued by TokenRequest (at least 1h); longer requests are cut to it', { supported: true }),
    option('service-account-extend-token-expiration', 'bool', 'pod-bound tokens asked for 3607s (kubelet projected volumes) for the API audiences live a year, with a warnafter claim at the asked time', { default: 'true', supported: true }),
  ],
});

const AUTHORIZERS = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'];

/** authorization options (spec 2, part 5) */
export const authorizationOptions: OptionGroup = Object.freeze({
  title: 'Authorization flags',
  options: [
    option('authorization-mode', 'stringSlice', `authorizers asked in order, the first that allows or denies decides (${AUTHORIZERS.join(', ')}); members of system:masters may always do everything unless the mode is AlwaysAllow alone. RBAC reads Roles and bindings as stored, ABAC the policy file, Webhook asks a remote service`, {
      default: 'AlwaysAllow',
      validate: eachOf(...AUTHORIZERS),
      supported: true,
    }),
    option('authorization-policy-file', 'string', 'ABAC policy file, one JSON policy per line (unversioned v0 or abac.authorization.kubernetes.io/v1beta1 Policy); a bad line stops start-up', { supported: true }),
    option('authorization-webhook-config-file', 'string', 'kubeconfig-format file of the authorization webhook (server, CA, client certificate or token of its current context), asked with a SubjectAccessReview per decision', { supported: true }),
    option('authorization-webhook-version', 'string', 'SubjectAccessReview version exchanged with that webhook', { default: 'v1beta1', validate: oneOf('v1', 'v1beta1'), supported: true }),
    option('authorization-webhook-cache-authorized-ttl', 'duration', 'how long "allowed" answers are cached', { default: '5m0s', supported: true }),
    option('authorization-webhook-cache-unauthorized-ttl', 'duration', 'how long "denied" (and no-opinion) answers are cached', { default: '30s', supported: true }),
  ],
});

/** admission options (spec 2, 1.3) */
export const admissionOptions: OptionGroup = Object.freeze({
  title: 'Admission flags',
  options: [
    option('enable-admission-plugins', 'stringSlice', `admission plugins to run besides the default set (${DEFAULT_ENABLED_ADMISSION_PLUGINS.join(', ')}); known: ${ORDERED_ADMISSION_PLUGINS.join(', ')}. The order of plugins in this flag does not matter`, { supported: true }),
    option('disable-admission-plugins', 'stringSlice', 'admission plugins to switch off even if they are in the default set. The order of plugins in this flag does not matter', { supported: true }),
    option('admission-control-config-file', 'string', 'AdmissionConfiguration file (apiserver.config.k8s.io/v1) holding the plugins\' configurations', { supported: true }),
  ],
});
