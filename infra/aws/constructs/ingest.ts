// Stage 1, ingest: the HTTPS endpoint runner hosts push to. The function checks the host's HMAC over the
// raw body (docs/contract.md §3), checks the host owns what it writes, and queues the delivery for landing: in its
// message when it fits SQS's 1 MiB, else in the inbox with a claim check.
import { Annotations, Duration, Validations } from 'aws-cdk-lib';
import { ApiMapping, DomainName, HttpMethod, HttpRoute, HttpRouteKey } from 'aws-cdk-lib/aws-apigatewayv2';
import { Certificate, CertificateValidation } from 'aws-cdk-lib/aws-certificatemanager';
import { RecordTarget } from 'aws-cdk-lib/aws-route53';
import { ApiGatewayv2DomainProperties } from 'aws-cdk-lib/aws-route53-targets';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  OriginSslPolicy,
  PriceClass,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { TIMEOUTS } from '../timing.ts';
import { ingestHostName, type DomainConfig } from '#schema/config.ts';
import { aliasRecords, hostedZoneOf } from './domain-names.ts';
import { ReplayHttpApi } from './http-api.ts';
import { ReplayFunction } from './replay-function.ts';
import type { StageProps } from './stage-props.ts';

export const INGEST_ROUTE = '/hooks/{space}/ingest';

export class Ingest extends Construct {
  readonly endpoint: ReplayHttpApi;
  readonly function: ReplayFunction;
  /** Where runner hosts send: `https://ingest.{domain}` with a configured domain, else the API's own address. */
  readonly baseUrl: string;

  /** With the ingest firewall: the CloudFront distribution runner hosts send through. */
  readonly front?: Distribution;

  constructor(scope: Construct, id: string, { config, state, alarms, webAclArn }: StageProps & { webAclArn?: string }) {
    super(scope, id);
    this.function = new ReplayFunction(this, 'Ingest', {
      service: 'ingest',
      description:
        'POST /hooks/{space}/ingest: verifies the host signature, stores the delivery, queues it for landing.',
      timeout: TIMEOUTS.ingest,
      memorySize: 512,
      config,
    })
      .usesBucket('INBOX_BUCKET', state.objectAccess('inbox', 'write'))
      .sendsTo('LANDING_QUEUE_URL', state.landingQueue)
      .checksOwnership(state.table)
      .readsHostKeys(
        state.names.secretPrefix,
        Object.values(config.spaces).map((space) => space.secretConfigKey),
      );

    // A v1 signature binds neither space nor time: a captured delivery replays into any space its host sends to.
    for (const [name, space] of Object.entries(config.spaces))
      if (space.acceptV1Until !== undefined)
        Annotations.of(this).addWarningV2(
          `replay:space-accepts-v1:${name}`,
          `Space ${name} accepts v1 signatures through ${space.acceptV1Until} (acceptV1Until): a delivery captured from ` +
            `its hosts can be replayed, into this space or any other space that also accepts v1, at any later time. Once ` +
            `every host runs a replay-push that signs v2, remove acceptV1Until and deploy (docs/contract.md §3).`,
        );

    // A rack of runners sends one delivery per finished run, plus catch-up bursts after an outage.
    this.endpoint = new ReplayHttpApi(this, 'Endpoint', {
      name: state.names.prefixed('ReplayBench-Ingest'),
      description: 'replay-bench ingest endpoint for runner hosts',
      rateLimit: 20,
      burstLimit: 100,
    });
    if (webAclArn) this.front = this.behindFirewall(webAclArn, state.accessLogs);
    this.baseUrl = this.front
      ? `https://${this.front.distributionDomainName}`
      : config.domain
        ? this.serveAt(config.domain)
        : this.endpoint.api.apiEndpoint;
    const integration = new HttpLambdaIntegration('Ingest', this.function.lambda);
    const routes = this.endpoint.api.addRoutes({ path: INGEST_ROUTE, methods: [HttpMethod.POST], integration });
    // Everything else reaches the function too, so a wrong method or path gets the protocol's JSON 405/404
    // (docs/contract.md §3, check 1) rather than API Gateway's own body.
    routes.push(
      new HttpRoute(this, 'Default', { httpApi: this.endpoint.api, routeKey: HttpRouteKey.DEFAULT, integration }),
    );
    for (const route of routes) {
      Validations.of(route).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason:
          "Each delivery is authenticated by the sending host's HMAC-SHA256 over the exact raw body (docs/contract.md " +
          '§3), checked in the function; no API Gateway authorizer can see the raw body, and runner hosts hold no user identity.',
      });
    }

    alarms.watchUnreadableHostKeys(this, 'UnreadableHostKeys');
    alarms.watch(this, 'ServerErrors', {
      metric: this.endpoint.api.metricServerError({ period: Duration.minutes(5), statistic: 'Sum' }),
      threshold: 1,
      description:
        'The ingest endpoint answered 5xx: deliveries were not stored (runners keep them in their outbox and retry).',
      runbook: 'Ingest server errors',
    });
  }

  /**
   * CloudFront in front of the endpoint with the firewall's web ACL: every method and header but Host passes
   * to the API, nothing is cached, and the raw body (which the signature covers) arrives unchanged.
   */
  private behindFirewall(webAclArn: string, accessLogs: IBucket): Distribution {
    const front = new Distribution(this, 'Front', {
      comment: 'replay-bench ingest behind the AWS WAF rate limit',
      webAclId: webAclArn,
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      enableLogging: true,
      logBucket: accessLogs,
      logFilePrefix: 'cloudfront/ingest/',
      defaultBehavior: {
        origin: new HttpOrigin(this.endpoint.domainName, {
          protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
          originSslProtocols: [OriginSslPolicy.TLS_V1_2],
        }),
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: AllowedMethods.ALLOW_ALL,
        cachePolicy: CachePolicy.CACHING_DISABLED,
        originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      },
    });
    Validations.of(front).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason: 'Runner hosts may be anywhere; deliveries are authenticated by their HMAC, not by origin country.',
      },
      {
        id: 'AwsSolutions-CFR4',
        reason:
          'The ingest front answers on its *.cloudfront.net name, whose certificate and minimum viewer protocol CloudFront chooses; runner hosts speak TLS 1.2 or newer.',
      },
    );
    return front;
  }

  /** The configured name, its certificate, and (with a hosted zone) its record; the base URL it gives. */
  private serveAt(domain: DomainConfig): string {
    const host = ingestHostName(domain);
    const zone = hostedZoneOf(this, domain);
    const certificate = domain.ingestCertificateArn
      ? Certificate.fromCertificateArn(this, 'Certificate', domain.ingestCertificateArn)
      : new Certificate(this, 'Certificate', { domainName: host, validation: CertificateValidation.fromDns(zone) });
    const domainName = new DomainName(this, 'Domain', { domainName: host, certificate });
    new ApiMapping(this, 'Mapping', { api: this.endpoint.api, domainName, stage: this.endpoint.stage });
    if (zone)
      aliasRecords(
        this,
        zone,
        host,
        RecordTarget.fromAlias(
          new ApiGatewayv2DomainProperties(domainName.regionalDomainName, domainName.regionalHostedZoneId),
        ),
        false,
      );
    return `https://${host}`;
  }
}
