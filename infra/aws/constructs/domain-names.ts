// The configured domain (docs/deploy.md, "Stable endpoints"), as each construct needs it: the hosted zone
// its records go into, when the configuration names one, and the alias records themselves.
import { ARecord, AaaaRecord, HostedZone, RecordTarget, type IHostedZone } from 'aws-cdk-lib/aws-route53';
import type { Construct } from 'constructs';
import type { DomainConfig } from '#schema/config.ts';

export function hostedZoneOf(scope: Construct, domain: DomainConfig): IHostedZone | undefined {
  if (!domain.hostedZoneId) return undefined;
  return HostedZone.fromHostedZoneAttributes(scope, 'Zone', {
    hostedZoneId: domain.hostedZoneId,
    zoneName: domain.name,
  });
}

/** `host` as an alias of `target`: IPv4, and IPv6 where the target serves it. */
export function aliasRecords(
  scope: Construct,
  zone: IHostedZone,
  host: string,
  target: RecordTarget,
  ipv6: boolean,
): void {
  // A name ending in "." is taken as it is, whatever the zone's own name.
  const recordName = `${host}.`;
  new ARecord(scope, 'Alias', { zone, recordName, target });
  if (ipv6) new AaaaRecord(scope, 'AliasIpv6', { zone, recordName, target });
}
