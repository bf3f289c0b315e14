// Small readers over synthesized templates: which function is which, and what each role may do.
import type { Template } from 'aws-cdk-lib/assertions';

export interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

export interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
  DeletionPolicy?: string;
}

export interface FunctionInfo {
  id: string;
  /** The template of the stack the function is in. */
  template: Template;
  roleId: string;
  properties: Record<string, unknown>;
  environment: Record<string, unknown>;
}

const resources = (t: Template): Record<string, Resource> =>
  (t.toJSON() as { Resources: Record<string, Resource> }).Resources;

export const ofType = (t: Template, type: string): [string, Resource][] =>
  Object.entries(resources(t)).filter(([, r]) => r.Type === type);

export const actionsOf = (s: Statement): string[] => (Array.isArray(s.Action) ? s.Action : [s.Action]);
export const resourcesOf = (s: Statement): unknown[] => (Array.isArray(s.Resource) ? s.Resource : [s.Resource]);
/** Whether a template value points at the resource with this logical id, in this stack or through an output. */
export const mentions = (value: unknown, logicalId: string): boolean => JSON.stringify(value).includes(logicalId);

/** The functions of these stacks by POWERTOOLS_SERVICE_NAME (a read API per cockpit, so lists). */
export function functionsByService(...templates: Template[]): Map<string, FunctionInfo[]> {
  const byService = new Map<string, FunctionInfo[]>();
  for (const [template, [id, fn]] of templates.flatMap((t) =>
    ofType(t, 'AWS::Lambda::Function').map((entry) => [t, entry] as const),
  )) {
    const environment = ((fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)
      ?.Variables ?? {}) as Record<string, unknown>;
    const service = environment.POWERTOOLS_SERVICE_NAME;
    if (typeof service !== 'string') continue;
    const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    byService.set(service, [
      ...(byService.get(service) ?? []),
      { id, template, roleId, properties: fn.Properties, environment },
    ]);
  }
  return byService;
}

export function onlyFunction(pipeline: Template, service: string): FunctionInfo {
  const found = functionsByService(pipeline).get(service) ?? [];
  if (found.length !== 1) throw new Error(`expected one ${service} function, found ${found.length}`);
  return found[0]!;
}

/**
 * Every allow statement a role holds: its inline policies in the pipeline stack, plus the managed
 * policies of the stateful stack it attaches (referenced through that stack's outputs).
 */
export function roleStatements(state: Template, pipeline: Template, roleId: string): Statement[] {
  const inline = ofType(pipeline, 'AWS::IAM::Policy')
    .filter(([, p]) => mentions(p.Properties.Roles, roleId))
    .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
  const role = resources(pipeline)[roleId]!;
  const outputs = (state.toJSON() as { Outputs?: Record<string, { Value: unknown }> }).Outputs ?? {};
  const managed = ((role.Properties.ManagedPolicyArns as unknown[] | undefined) ?? []).flatMap((arn) => {
    // AWS managed policies (only the library's deployment handler has one) are not ours to read.
    const outputName = (arn as { 'Fn::GetStackOutput'?: { OutputName: string } })['Fn::GetStackOutput']?.OutputName;
    if (!outputName) return [];
    const policyId = (outputs[outputName]!.Value as { Ref: string }).Ref;
    return (resources(state)[policyId]!.Properties.PolicyDocument as { Statement: Statement[] }).Statement;
  });
  return [...inline, ...managed].filter((s) => s.Effect === 'Allow');
}

/** The roles of these stacks that may perform `action` on the resource with `logicalId`. */
export function rolesAllowed(state: Template, templates: Template[], action: string, logicalId: string): string[] {
  return templates
    .flatMap((t) => ofType(t, 'AWS::IAM::Role').map(([roleId]) => [t, roleId] as const))
    .filter(([template, roleId]) =>
      roleStatements(state, template, roleId).some(
        (s) => actionsOf(s).some((a) => matches(a, action)) && resourcesOf(s).some((r) => mentions(r, logicalId)),
      ),
    )
    .map(([, roleId]) => roleId);
}

const matches = (granted: string, wanted: string): boolean =>
  granted === '*' || granted === wanted || (granted.endsWith('*') && wanted.startsWith(granted.slice(0, -1)));

/** The one resource of a type that satisfies the predicate; anything else is a failed expectation. */
export function one(
  t: Template,
  type: string,
  predicate: (properties: Record<string, unknown>) => boolean = () => true,
): [string, Resource] {
  const found = ofType(t, type).filter(([, r]) => predicate(r.Properties ?? {}));
  if (found.length !== 1) throw new Error(`expected one ${type}, found ${found.length}`);
  return found[0]!;
}

export const logicalIdOf = (
  t: Template,
  type: string,
  predicate: (properties: Record<string, unknown>) => boolean,
): string => one(t, type, predicate)[0];

/** The key pattern of an object ARN of the bucket (`Fn::Join` of its ARN and "/pattern"), or "(bucket)". */
const keyPatternOf = (resource: unknown): string => {
  const parts = (resource as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join']?.[1];
  const tail = parts?.at(-1);
  return typeof tail === 'string' && tail.startsWith('/') ? tail.slice(1) : '(bucket)';
};

/**
 * Every grant of these statements on one bucket, one line per action and key pattern ("s3:GetObject runs/S/*"),
 * listing as "s3:ListBucket under <prefix>" from its condition, sorted.
 */
export const bucketGrants = (statements: Statement[], bucketId: string): string[] =>
  statements
    .filter((s) => resourcesOf(s).some((r) => mentions(r, bucketId)))
    .flatMap((s: Statement) =>
      actionsOf(s).flatMap((action) => {
        if (action !== 's3:ListBucket') return resourcesOf(s).map((r) => `${action} ${keyPatternOf(r)}`);
        const prefixes = (s as { Condition?: { StringLikeIfExists?: { 's3:prefix'?: string[] } } }).Condition
          ?.StringLikeIfExists?.['s3:prefix'];
        return prefixes ? prefixes.map((p) => `${action} under ${p}`) : [`${action} anywhere`];
      }),
    )
    .sort();

/** Whether an S3 ARN key pattern (`*` any characters, `?` one) matches a key. */
export const keyPatternMatches = (pattern: string, key: string): boolean =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replaceAll('*', '.*')
      .replaceAll('?', '.')}$`,
  ).test(key);
