// The house HTTP API: one `$default` stage with throttling and JSON access logs, so neither the ingest
// endpoint nor a cockpit's read API can be deployed without them.
import { RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, HttpStage, LogGroupLogDestination, type IHttpRouteAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { LOG_RETENTION } from './replay-function.ts';

export interface ReplayHttpApiProps {
  /** What the API is, as the console lists it (API Gateway caps names at 128 characters). */
  name: string;
  description: string;
  /** Steady requests per second, and the burst above it, before API Gateway answers 429. */
  rateLimit: number;
  burstLimit: number;
  defaultAuthorizer?: IHttpRouteAuthorizer;
}

// No header values: an Authorization or X-Replay-Signature header never reaches a log.
const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  ip: '$context.identity.sourceIp',
  requestTime: '$context.requestTime',
  routeKey: '$context.routeKey',
  path: '$context.path',
  status: '$context.status',
  responseLength: '$context.responseLength',
  latencyMs: '$context.responseLatency',
  integrationStatus: '$context.integrationStatus',
  integrationError: '$context.integrationErrorMessage',
  authorizerError: '$context.authorizer.error',
  userAgent: '$context.identity.userAgent',
};

export class ReplayHttpApi extends Construct {
  readonly api: HttpApi;
  readonly stage: HttpStage;

  constructor(scope: Construct, id: string, props: ReplayHttpApiProps) {
    super(scope, id);
    this.api = new HttpApi(this, 'Api', {
      apiName: props.name.length <= 128 ? props.name : `${props.name.slice(0, 127)}…`,
      description: props.description,
      createDefaultStage: false,
      defaultAuthorizer: props.defaultAuthorizer,
    });
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: LOG_RETENTION,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.stage = new HttpStage(this, 'Stage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: props.rateLimit, burstLimit: props.burstLimit },
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });
  }

  /** The invoke URL's host, for CloudFront to use as an origin. */
  get domainName(): string {
    return `${this.api.apiId}.execute-api.${this.api.stack.region}.${this.api.stack.urlSuffix}`;
  }
}
