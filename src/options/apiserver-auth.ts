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
    option('enable-bootstrap-token-auth', 'bool', 'accept bootstrap token secrets of kube-system for TLS bootstrapping'),
    option('api-audiences', 'stringSlice', 'audiences of this API; service account tokens must name one (defaults to the issuer when one is set)'),
    option('authentication-token-webhook-config-file', 'string', 'kubeconfig-format file of a webhook that checks bearer tokens'),
    option('authentication-token-webhook-version', 'string', 'TokenReview version exchanged with that webhook', { default: 'v1beta1', validate: oneOf('v1', 'v1beta1') }),
    option('authentication-token-webhook-cache-ttl', 'duration', 'how long webhook token answers are cached', { default: '2m0s' }),
    option('oidc-issuer-url', 'string', 'HTTPS URL of the OpenID issuer whose ID tokens are accepted'),
    option('oidc-client-id', 'string', 'client ID every token must be issued for; needed with --oidc-issuer-url'),
    option('oidc-ca-file', 'string', 'CA that signed the identity provider\'s certificate (default: the host\'s roots)'),
    option('oidc-username-claim', 'string', 'token claim used as user name', { default: 'sub' }),
    option('oidc-username-prefix', 'string', 'prefix added to user names; "-" adds none'),
    option('oidc-groups-claim', 'string', 'token claim holding the user\'s groups'),
    option('oidc-groups-prefix', 'string', 'prefix added to group names'),
    option('oidc-required-claim', 'mapStringString', 'claim=value that a token must carry; repeatable'),
    option('oidc-signing-algs', 'stringSlice', 'signing algorithms accepted in tokens', { default: 'RS256' }),
    option('requestheader-client-ca-file', 'string', 'CA bundle checking front proxies before user names in request headers are trusted'),
    option('requestheader-allowed-names', 'stringSlice', 'client certificate common names allowed to set those headers; empty allows any'),
    option('requestheader-username-headers', 'stringSlice', 'headers holding the user name, e.g. X-Remote-User; the first is the one sent to extension servers (X-Remote-User when empty)', { supported: true }),
    option('requestheader-group-headers', 'stringSlice', 'headers holding groups, e.g. X-Remote-Group; the first is the one sent to extension servers (X-Remote-Group when empty)', { supported: true }),
    option('requestheader-extra-headers-prefix', 'stringSlice', 'header prefixes holding extra user data, e.g. X-Remote-Extra-; the first is the one sent to extension servers (X-Remote-Extra- when empty)', { supported: true }),
    option('service-account-issuer', 'string', 'issuer ("iss") of service account tokens'),
    option('service-account-signing-key-file', 'string', 'private key that signs service account tokens'),
    option('service-account-key-file', 'stringArray', 'PEM keys that verify service account tokens; repeatable (default: the TLS private key)'),
    option('service-account-jwks-uri', 'string', 'key-set URI announced in the discovery document'),
    option('service-account-lookup', 'bool', 'check that service account tokens still exist in storage', { default: 'true' }),
    option('service-account-max-token-expiration', 'duration', 'longest lifetime of an issued token'),
    option('service-account-extend-token-expiration', 'bool', 'let injected projected tokens live up to a year during migration', { default: 'true' }),
  ],
});

const AUTHORIZERS = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'];

/** authorization options (spec 2, part 5); Ballast allows every request for now */
export const authorizationOptions: OptionGroup = Object.freeze({
  title: 'Authorization flags',
  options: [
    option('authorization-mode', 'stringSlice', `authorizers asked in order: ${AUTHORIZERS.join(', ')}`, {
      default: 'AlwaysAllow',
      validate: eachOf(...AUTHORIZERS),
    }),
    option('authorization-policy-file', 'string', 'ABAC policy file, one JSON object per line'),
    option('authorization-webhook-config-file', 'string', 'kubeconfig-format file of the authorization webhook'),
    option('authorization-webhook-version', 'string', 'SubjectAccessReview version exchanged with that webhook', { default: 'v1beta1', validate: oneOf('v1', 'v1beta1') }),
    option('authorization-webhook-cache-authorized-ttl', 'duration', 'how long "allowed" answers are cached', { default: '5m0s' }),
    option('authorization-webhook-cache-unauthorized-ttl', 'duration', 'how long "denied" answers are cached', { default: '30s' }),
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
