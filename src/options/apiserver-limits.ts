import { atLeast, option } from './define';
import { featureGateHelpLines, validateFeatureGates } from './feature-gates';
import { runtimeConfigSyntaxError } from '../api/runtime-config';
import type { OptionGroup } from './types';

const nonNegative = atLeast(0);

/** request limits and shutdown (spec 2, part 8) */
export const limitOptions: OptionGroup = Object.freeze({
  title: 'Limit flags',
  options: [
    option('max-requests-inflight', 'int', 'read requests served at once; more are answered 429; 0 means no limit', {
      default: '400',
      supported: true,
      validate: nonNegative,
    }),
    option('max-mutating-requests-inflight', 'int', 'writing requests served at once; more are answered 429; 0 means no limit', {
      default: '200',
      supported: true,
      validate: nonNegative,
    }),
    option('request-timeout', 'duration', 'default time limit of a request (watches excepted)', {
      default: '1m0s',
      supported: true,
      validate: (v) => ((v as number) > 0 ? undefined : 'must be greater than 0'),
    }),
    option('min-request-timeout', 'int', 'seconds: the shortest time a watch stays open; each watch picks a random time between this and twice this', {
      default: '1800',
      supported: true,
      validate: nonNegative,
    }),
    option('shutdown-delay-duration', 'duration', 'on SIGTERM/SIGINT, keep serving this long with /readyz failing (so load balancers stop sending), then stop', {
      default: '0s',
      supported: true,
      validate: (v) => ((v as number) >= 0 ? undefined : 'must not be negative'),
    }),
    option('max-connection-bytes-per-sec', 'int', 'when not 0, the response bytes of each long-running request (watches; log, exec, attach, portforward, proxy) leave at most at this rate', { default: '0', supported: true, validate: nonNegative }),
    option('livez-grace-period', 'duration', 'time after start during which /livez treats unfinished post-start hooks (poststarthook/bootstrap-controller, poststarthook/start-kube-apiserver-identity-lease-controller) as healthy; /readyz waits for them', { default: '0s', supported: true }),
    option('identity-lease-duration-seconds', 'int', 'leaseDurationSeconds of this server\'s identity Lease (kube-system/apiserver-<hash>, with the APIServerIdentity gate); leases not renewed within it are deleted', { default: '3600', validate: atLeast(1), supported: true }),
    option('identity-lease-renew-interval-seconds', 'int', 'how often that lease is renewed', { default: '10', validate: atLeast(1), supported: true }),
  ],
});

/** API enablement and feature gates (spec 2, part 9) */
export const versioningOptions: OptionGroup = Object.freeze({
  title: 'API enablement flags',
  options: [
    option('runtime-config', 'mapStringString', 'turn API versions on or off: v1, <group>/<version>, api/all, api/ga, api/beta, api/alpha set to true or false', {
      supported: true,
      // values and key shapes fail here; unknown groups and versions when the server resolves it
      validate: (v) => runtimeConfigSyntaxError(v as Record<string, string>),
    }),
    option('feature-gates', 'mapStringBool', 'feature gates as Name=true|false pairs, for the gates of kube 1.32 and 1.20 (GA and deprecated gates are accepted but not listed; a gate locked to its default refuses another value). Ballast acts on APIPriorityAndFairness, APIListChunking, APIResponseCompression, EphemeralContainers, RemainingItemCount, ServerSideApply, ServiceAccountTokenNodeBinding and WatchBookmark; the others change nothing', {
      supported: true,
      validate: validateFeatureGates,
      helpLines: featureGateHelpLines,
    }),
  ],
});
