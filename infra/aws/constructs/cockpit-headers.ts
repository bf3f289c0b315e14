// The response headers every cockpit's pages are served with, one policy per kind of cockpit for the whole
// deployment: CloudFront allows 20 response headers policies per account, so a policy per cockpit would cap
// a deployment at 20 cockpits. For the same reason the public cockpits share one cache policy, for the one
// answer they cache (`publicHostsCache`). A signed-in cockpit's pages may also connect to the deployment's one Cognito
// domain (the token exchange); a public cockpit's connect to their own origin only.
import { Duration } from 'aws-cdk-lib';
import {
  CacheCookieBehavior,
  CacheHeaderBehavior,
  CachePolicy,
  CacheQueryStringBehavior,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  ResponseHeadersPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { Construct } from 'constructs';
import type { Analysts } from './analyst-pool.ts';

export const HOSTS_CACHE_TTL = Duration.minutes(1);

export class CockpitHeaders extends Construct {
  private signedIn?: ResponseHeadersPolicy;
  private published?: ResponseHeadersPolicy;
  private hostsCache?: CachePolicy;

  constructor(
    scope: Construct,
    id: string,
    private readonly nameOf: (kind: string) => string,
  ) {
    super(scope, id);
  }

  /** The policy for a cockpit that requires sign-in (with the deployment's analysts) or a public one. */
  policyFor(analysts: Analysts | undefined): ResponseHeadersPolicy {
    if (analysts) return (this.signedIn ??= this.policy('SignedIn', 'cockpits that require sign-in', analysts));
    return (this.published ??= this.policy('Public', 'public cockpits', undefined));
  }

  /**
   * A public cockpit's `/hosts` answer for a minute, whatever the origin says: the read function counts each
   * sender's runs and asks Secrets Manager whether it is paired on every request it gets, and a public
   * cockpit's visitors (or a flood of them) need no fresher list. The key is the path alone.
   */
  publicHostsCache(): CachePolicy {
    return (this.hostsCache ??= new CachePolicy(this, 'PublicHostsCache', {
      cachePolicyName: this.nameOf('PublicHostsCache'),
      comment: 'replay-bench: the hosts list of public cockpits, one minute',
      minTtl: HOSTS_CACHE_TTL,
      defaultTtl: HOSTS_CACHE_TTL,
      maxTtl: HOSTS_CACHE_TTL,
      headerBehavior: CacheHeaderBehavior.none(),
      cookieBehavior: CacheCookieBehavior.none(),
      queryStringBehavior: CacheQueryStringBehavior.none(),
      enableAcceptEncodingGzip: true,
      enableAcceptEncodingBrotli: true,
    }));
  }

  private policy(kind: string, what: string, analysts: Analysts | undefined): ResponseHeadersPolicy {
    return new ResponseHeadersPolicy(this, kind, {
      responseHeadersPolicyName: this.nameOf(kind),
      comment: `replay-bench: security headers of the ${what}`,
      securityHeadersBehavior: securityHeaders(analysts),
    });
  }
}

/**
 * The dashboard is same-origin static code: no inline script, no third-party origin except, for a
 * signed-in cockpit, the Cognito token endpoint it exchanges the authorization code at.
 */
function securityHeaders(analysts: Analysts | undefined) {
  const signIn = analysts ? ` ${analysts.domain.baseUrl()}` : '';
  const csp = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src 'self'${signIn}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
  return {
    contentSecurityPolicy: { contentSecurityPolicy: csp, override: true },
    contentTypeOptions: { override: true },
    frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
    referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.STRICT_ORIGIN_WHEN_CROSS_ORIGIN, override: true },
    strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
  };
}
