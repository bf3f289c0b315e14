// Stage 5, cockpit: one configured cockpit published on CloudFront. The built dashboard sits in a private
// bucket read through Origin Access Control; `/api/*` goes to this cockpit's own read API, whose function
// is configured with this cockpit's space only. Sign-in (Cognito hosted UI, JWT checked by API Gateway, the
// cockpit's own Cognito group checked by its read function) is the default; `"public": true` in the
// configuration publishes the space read-only instead.
import { existsSync } from 'node:fs';
import {
  Aws,
  CfnCondition,
  DefaultStackSynthesizer,
  Duration,
  Fn,
  RemovalPolicy,
  Stack,
  Validations,
} from 'aws-cdk-lib';
import { MathExpression, type CfnAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import { HttpMethod, type IHttpRouteAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
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
  ResponseHeadersPolicy,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { RecordTarget } from 'aws-cdk-lib/aws-route53';
import { CloudFrontTarget } from 'aws-cdk-lib/aws-route53-targets';
import { OAuthScope, UserPoolClient, UserPoolClientIdentityProvider } from 'aws-cdk-lib/aws-cognito';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership, type CfnBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source, type ISource } from 'aws-cdk-lib/aws-s3-deployment';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { cockpitConfig, type ReplayConfig } from '../deployment-config.ts';
import { cockpitHostName } from '#schema/config.ts';
import { aliasRecords, hostedZoneOf } from './domain-names.ts';
import type { Analysts } from './analyst-pool.ts';
import type { PipelineState } from '../stateful-stack.ts';
import { TIMEOUTS } from '../timing.ts';
import type { Alarms } from './alarms.ts';
import type { CockpitHeaders } from './cockpit-headers.ts';
import { ReplayHttpApi } from './http-api.ts';
import { LOG_RETENTION, ReplayFunction } from './replay-function.ts';
import { cockpitWorkGroup } from './run-dataset-engine.ts';
import { COCKPIT_SETTINGS_FILE, type CockpitSettings } from '#analytics/contract.ts';
import { analystGroupOf } from '#core/read/cockpit-access.ts';

export const READ_ROUTE = '/api/{proxy+}';
/** The read route a public cockpit's distribution caches (docs/contract.md §10, HTTP API: `GET …/hosts`). */
export const HOSTS_PATH = '/api/spaces/*/hosts';

export interface CockpitProps {
  name: string;
  config: ReplayConfig;
  state: PipelineState;
  /** The deployment's shared response headers policies (constructs/cockpit-headers.ts). */
  headers: CockpitHeaders;
  alarms: Alarms;
  /** The built dashboard (`cdk synth` builds it; see infra/aws/app.ts). */
  dashboardDir: string;
}

export class Cockpit extends Construct {
  readonly distribution: Distribution;
  readonly readApi: ReplayHttpApi;
  readonly function: ReplayFunction;
  readonly client?: UserPoolClient;
  /** The cockpit's address: its own name under a configured domain, else its cloudfront.net name. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: CockpitProps) {
    super(scope, id);
    const { name, config, state, alarms } = props;
    const cockpit = config.cockpits[name]!;
    const analysts = cockpit.public ? undefined : requireAnalysts(state, name);
    this.function = this.readFunction(props, analysts);
    // The dashboard polls `since` deltas every few seconds per open tab; a burst covers a cold page load.
    this.readApi = new ReplayHttpApi(this, 'ReadEndpoint', {
      name: state.names.prefixed(`ReplayBench-CockpitRead-${name}`),
      description: `replay-bench read API of cockpit ${name}`,
      rateLimit: 50,
      burstLimit: 200,
    });
    const site = siteBucket(this);
    const host = config.domain && cockpitHostName(config.domain, name);
    this.distribution = this.publish(props, site, host, analysts);
    this.watch(alarms, name);
    this.url = `https://${host ?? this.distribution.distributionDomainName}/`;
    if (analysts) this.client = this.signInClient(analysts);
    this.routeReads(props, analysts);
    this.deployDashboard(props, site, analysts);
  }

  /** The read function of this cockpit's space alone; a signed-in cockpit's answers only its analysts' group. */
  private readFunction({ name, config, state }: CockpitProps, analysts: Analysts | undefined): ReplayFunction {
    const cockpit = config.cockpits[name]!;
    const space = config.spaces[cockpit.space]!;
    const reads = state.spaceObjectReads(cockpit.space);
    const readFunction = new ReplayFunction(this, 'ReadApi', {
      service: 'read-api',
      description: clip(`GET /api/* for cockpit ${name}: runs, issues and hosts of space ${cockpit.space}.`, 256),
      timeout: TIMEOUTS.readApi,
      memorySize: 512,
      config: cockpitConfig(config, name),
    })
      .readsSpaceOfTable(state.table, cockpit.space)
      .usesBucket('DATA_BUCKET', reads)
      .describesHostKeys(state.names.secretPrefix, space.secretConfigKey)
      .queriesRunDataset(cockpitWorkGroup(this, state.names, name, cockpit.space, reads.bucket), state.runDataset);
    if (analysts) {
      // Every analyst of the deployment passes the JWT authorizer; only this cockpit's group is answered.
      if (!analysts.groups.has(name))
        throw new Error(`Cockpit ${name} requires sign-in but the user pool has no group for it.`);
      readFunction.lambda.addEnvironment('ANALYST_GROUP', analystGroupOf(name));
    }
    return readFunction;
  }

  /**
   * The distribution: the site from its private bucket, `/api/*` from the read API never cached (a public
   * cockpit's hosts list a minute), under its own name when a domain is configured.
   */
  private publish(
    { name, config, state, headers }: CockpitProps,
    site: Bucket,
    host: string | undefined,
    analysts: Analysts | undefined,
  ): Distribution {
    const distribution = new Distribution(this, 'Distribution', {
      comment: clip(`replay-bench cockpit ${name}`, 128),
      ...(config.domain && host
        ? {
            domainNames: [host],
            certificate: Certificate.fromCertificateArn(this, 'Certificate', config.domain.cockpitCertificateArn!),
            // The newest policy CloudFront offers that still speaks TLS 1.2 (TLSv1.3_2025 drops it, and with it
            // the TLS-inspecting proxies some analysts sit behind): GCM and ChaCha20 ciphers with forward secrecy only.
            minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2025,
          }
        : {}),
      defaultRootObject: 'index.html',
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      enableLogging: true,
      logBucket: state.accessLogs,
      logFilePrefix: `cloudfront/${name}/`,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(site),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: headers.policyFor(analysts),
      },
    });
    // Rows change every few seconds, so the API is never cached. With caching off, CloudFront treats
    // Accept-Encoding like any other viewer header, so the managed AllViewerExceptHostHeader policy carries it
    // to the read API, whose gzip answers then reach the browser compressed; it carries the Authorization
    // header the JWT authorizer needs too, and costs no policy of the account's quota of 20.
    const readOrigin = new HttpOrigin(this.readApi.domainName, {
      protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
      originSslProtocols: [OriginSslPolicy.TLS_V1_2],
    });
    // Before `/api/*`, which CloudFront would match first: a public cockpit's hosts list, cached a minute.
    if (!analysts)
      distribution.addBehavior(HOSTS_PATH, readOrigin, {
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: headers.publicHostsCache(),
        responseHeadersPolicy: ResponseHeadersPolicy.SECURITY_HEADERS,
      });
    distribution.addBehavior('/api/*', readOrigin, {
      viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
      allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
      cachePolicy: CachePolicy.CACHING_DISABLED,
      originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      responseHeadersPolicy: ResponseHeadersPolicy.SECURITY_HEADERS,
    });
    acknowledgeDistribution(distribution, host !== undefined);
    const zone = config.domain && hostedZoneOf(this, config.domain);
    if (zone && host) aliasRecords(this, zone, host, RecordTarget.fromAlias(new CloudFrontTarget(distribution)), true);
    return distribution;
  }

  /** The hosted UI's client for this cockpit's address: code flow, one-hour tokens, a week's refresh. */
  private signInClient(analysts: Analysts): UserPoolClient {
    return new UserPoolClient(this, 'SignInClient', {
      userPool: analysts.userPool,
      generateSecret: false,
      preventUserExistenceErrors: true,
      supportedIdentityProviders: [UserPoolClientIdentityProvider.COGNITO],
      oAuth: {
        flows: { authorizationCodeGrant: true },
        scopes: [OAuthScope.OPENID, OAuthScope.EMAIL],
        callbackUrls: [this.url],
        logoutUrls: [this.url],
      },
      accessTokenValidity: Duration.hours(1),
      idTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.days(7),
    });
  }

  /** GET `/api/*` to the read function, behind the analysts' JWT unless the cockpit is public. */
  private routeReads({ name, config }: CockpitProps, analysts: Analysts | undefined): void {
    const authorizer: IHttpRouteAuthorizer | undefined =
      analysts &&
      new HttpJwtAuthorizer('Analysts', analysts.userPool.userPoolProviderUrl, {
        jwtAudience: [this.client!.userPoolClientId],
      });
    const routes = this.readApi.api.addRoutes({
      path: READ_ROUTE,
      methods: [HttpMethod.GET],
      integration: new HttpLambdaIntegration('ReadApi', this.function.lambda),
      authorizer,
    });
    if (analysts) return;
    for (const route of routes) {
      Validations.of(route).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason:
          `The configuration publishes cockpit ${name} read-only ("public": ` +
          `true); this API serves GET only, for space ${config.cockpits[name]!.space} only, and is throttled.`,
      });
    }
  }

  /** The built dashboard and this cockpit's settings into the site bucket, the distribution invalidated. */
  private deployDashboard({ name, config, dashboardDir }: CockpitProps, site: Bucket, analysts?: Analysts): void {
    const cockpit = config.cockpits[name]!;
    const settings: CockpitSettings = {
      cockpits: [
        {
          name,
          space: cockpit.space,
          public: cockpit.public,
          showReference: cockpit.showReference,
          minN: cockpit.minN,
          campaign: cockpit.campaign ?? null,
        },
      ],
      api: '/api',
      signIn: analysts && this.client ? signInSettings(analysts, this.client, this.url) : null,
    };
    const deployment = new BucketDeployment(this, 'Deploy', {
      sources: [dashboardSource(dashboardDir), Source.jsonData(COCKPIT_SETTINGS_FILE, settings)],
      destinationBucket: site,
      distribution: this.distribution,
      distributionPaths: ['/*'],
      retainOnDelete: false,
      memoryLimit: 512,
      logGroup: deploymentLogs(Stack.of(this)),
    });
    acknowledgeDeploymentHandler(deployment, site);
  }

  /**
   * Analysts meeting errors: the read API answering 5xx or its function throttled, and CloudFront answering
   * 5xx. CloudFront publishes its metrics in us-east-1 only and an alarm reads its own region's, so the
   * CloudFront alarm exists where the deployment is in us-east-1; elsewhere the dashboard shows them.
   */
  private watch(alarms: Alarms, name: string): void {
    const period = Duration.minutes(5);
    alarms.watch(this, 'ReadApiErrors', {
      metric: new MathExpression({
        // A quiet API publishes no 5xx datapoint: without FILL one missing series would hide the other.
        expression: 'FILL(errors, 0) + FILL(throttles, 0)',
        usingMetrics: {
          errors: this.readApi.api.metricServerError({ period, statistic: 'Sum' }),
          throttles: this.function.lambda.metricThrottles({ period, statistic: 'Sum' }),
        },
        period,
        label: `Cockpit ${name}: read API 5xx and throttles`,
      }),
      threshold: 1,
      description: `Cockpit ${name}'s read API answered 5xx or its function was throttled: analysts see errors.`,
      runbook: 'Cockpit read API errors',
    });
    const cloudFront = alarms.watch(this, 'CloudFrontErrors', {
      // CloudFront publishes every distribution metric with Region=Global beside DistributionId; a metric
      // without it names a series that never receives a datapoint.
      metric: this.distribution.metric5xxErrorRate({
        period,
        statistic: 'Average',
        dimensionsMap: { DistributionId: this.distribution.distributionId, Region: 'Global' },
      }),
      threshold: 5,
      evaluationPeriods: 2,
      description: `Cockpit ${name}: CloudFront answered 5xx to 5 % of requests or more for 10 minutes.`,
      runbook: 'Cockpit CloudFront errors',
    });
    (cloudFront.node.defaultChild as CfnAlarm).cfnOptions.condition = inUsEast1(Stack.of(this));
  }
}

/** The private bucket of the built dashboard, read only through the distribution. */
function siteBucket(scope: Construct): Bucket {
  const site = new Bucket(scope, 'Site', {
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    encryption: BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    minimumTLSVersion: 1.2,
    objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
    // Only build output lives here, and the deployment below removes it on stack deletion.
    removalPolicy: RemovalPolicy.DESTROY,
  });
  Validations.of(site).acknowledge({
    id: 'AwsSolutions-S1',
    reason:
      "The bucket holds only the built dashboard and is readable only by this distribution (OAC); every read is recorded in the distribution's access log.",
  });
  return site;
}

/**
 * The log group of the stack's one BucketDeployment handler (aws-cdk-lib shares it between the stack's
 * cockpits), at the house retention; without it Lambda makes one that keeps its logs for ever and outlives the stack.
 */
function deploymentLogs(stack: Stack): LogGroup {
  return (
    (stack.node.tryFindChild('DashboardDeploymentLogs') as LogGroup | undefined) ??
    new LogGroup(stack, 'DashboardDeploymentLogs', { retention: LOG_RETENTION, removalPolicy: RemovalPolicy.DESTROY })
  );
}

/** The stack's "deployed in us-east-1" condition, made once. */
function inUsEast1(stack: Stack): CfnCondition {
  return (
    (stack.node.tryFindChild('InUsEast1') as CfnCondition | undefined) ??
    new CfnCondition(stack, 'InUsEast1', { expression: Fn.conditionEquals(Aws.REGION, 'us-east-1') })
  );
}

/** Names may be up to 200 characters; AWS caps these free-text fields lower. */
const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

function requireAnalysts(state: PipelineState, cockpitName: string): Analysts {
  if (!state.analysts)
    throw new Error(`Cockpit ${cockpitName} requires sign-in but the stateful stack has no user pool.`);
  return state.analysts;
}

function signInSettings(
  analysts: Analysts,
  client: UserPoolClient,
  redirectUri: string,
): NonNullable<CockpitSettings['signIn']> {
  const base = analysts.domain.baseUrl();
  return {
    authorizeUrl: `${base}/oauth2/authorize`,
    tokenUrl: `${base}/oauth2/token`,
    logoutUrl: `${base}/logout`,
    clientId: client.userPoolClientId,
    redirectUri,
    scopes: ['openid', 'email'],
  };
}

/** A deploy never ships a placeholder: without the built dashboard there is no cockpit to synthesize. */
function dashboardSource(dashboardDir: string): ISource {
  if (!existsSync(`${dashboardDir}/index.html`))
    throw new Error(`The dashboard is not built in ${dashboardDir}; cdk synth builds it first (infra/aws/app.ts).`);
  return Source.asset(dashboardDir);
}

function acknowledgeDistribution(distribution: Distribution, ownName: boolean): void {
  Validations.of(distribution).acknowledge(
    {
      id: 'AwsSolutions-CFR1',
      reason:
        'Analysts and published readers may be anywhere; the content is benchmark results, not region-restricted.',
    },
    {
      id: 'AwsSolutions-CFR2',
      reason:
        'WAF costs a fixed monthly fee per web ACL; the only dynamic path is a GET-only, throttled API behind ' +
        'a JWT authorizer (or published read-only by configuration), and the static files are immutable build output.',
    },
  );
  // With its own name the distribution serves TLSv1.2_2025 at least; without, the finding stands.
  if (!ownName)
    Validations.of(distribution).acknowledge({
      id: 'AwsSolutions-CFR4',
      reason:
        'Without a configured domain the distribution answers on its *.cloudfront.net name, whose certificate and minimum viewer protocol ' +
        'CloudFront chooses; a "domain" in the configuration gives it its own name with TLSv1.2_2025 as the minimum (docs/deploy.md, "Stable endpoints").',
    });
}

/**
 * aws-cdk-lib's BucketDeployment runs one shared handler per stack whose role and runtime the library
 * defines; these are its findings, acknowledged on that handler only.
 */
function acknowledgeDeploymentHandler(deployment: BucketDeployment, site: Bucket): void {
  const handler = deployment.handlerRole.node.scope!;
  const stack = Stack.of(deployment);
  const assetBucket = DefaultStackSynthesizer.DEFAULT_FILE_ASSETS_BUCKET_NAME.replace(
    '${Qualifier}',
    stack.synthesizer.bootstrapQualifier ?? DefaultStackSynthesizer.DEFAULT_QUALIFIER,
  )
    .replaceAll('${', '<')
    .replaceAll('}', '>');
  const copies =
    'The library-defined deployment handler copies the built dashboard from the CDK asset bucket into this cockpit bucket';
  Validations.of(handler).acknowledge(
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: `${copies}; the managed policy only lets it write its own logs.`,
    },
    ...['s3:GetBucket*', 's3:GetObject*', 's3:List*', 's3:Abort*', 's3:DeleteObject*'].map((action) => ({
      id: `AwsSolutions-IAM5[Action::${action}]`,
      reason: `${copies}, syncing and pruning files (${action}) inside those two buckets only.`,
    })),
    {
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::${assetBucket}/*]`,
      reason: `${copies}; asset object names are content hashes.`,
    },
    {
      id: `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(site.node.defaultChild as CfnBucket)}.Arn>/*]`,
      reason: `${copies}; it replaces every file of the build.`,
    },
    {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'cloudfront:CreateInvalidation has no resource-level scoping for this handler; it invalidates the cockpit after each deployment.',
    },
    {
      id: 'AwsSolutions-L1',
      reason:
        'The runtime of the BucketDeployment handler is chosen by aws-cdk-lib and moves forward with it; the handler runs only during deployments.',
    },
  );
}
