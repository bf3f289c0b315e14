// A local server speaking Cognito's JSON protocol (POST /, x-amz-target AWSCognitoIdentityProviderService.*,
// application/x-amz-json-1.1, errors as {"__type","message"}) for the operations an operator script calls.
// It keeps users and groups as a user pool does, refuses SigV4-less requests, and behaves as a pool with
// no SMS configuration: an invitation that does not ask for email delivery fails as Cognito's does.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from '#infra/local/stand-ins/read-body.ts';

export interface StandInUser {
  attributes: Record<string, string>;
  status: 'FORCE_CHANGE_PASSWORD' | 'CONFIRMED';
  groups: Set<string>;
  /** Invitation mails sent, in order. */
  invitations: string[];
}

export interface CognitoStandIn {
  endpoint: string;
  userPoolId: string;
  users: Map<string, StandInUser>;
  groups: Set<string>;
  calls: { target: string; body: Record<string, unknown> }[];
  stop(): Promise<void>;
}

class CognitoFault extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

export async function startCognitoStandIn(userPoolId: string, groups: string[]): Promise<CognitoStandIn> {
  const users = new Map<string, StandInUser>();
  const groupSet = new Set(groups);
  const calls: CognitoStandIn['calls'] = [];

  const user = (username: string) => {
    const found = users.get(username);
    if (!found) throw new CognitoFault('UserNotFoundException', 'User does not exist.');
    return found;
  };
  const byEmail = (body: Record<string, unknown>) => {
    if (!Array.isArray(body.DesiredDeliveryMediums) || !body.DesiredDeliveryMediums.includes('EMAIL'))
      throw new CognitoFault(
        'InvalidParameterException',
        'User pool does not have SMS configuration to send messages.',
      );
  };
  const operations: Record<string, (body: Record<string, unknown>) => unknown> = {
    GetGroup(body) {
      if (!groupSet.has(String(body.GroupName)))
        throw new CognitoFault('ResourceNotFoundException', 'Group not found.');
      return { Group: { GroupName: body.GroupName, UserPoolId: userPoolId } };
    },
    AdminCreateUser(body) {
      const username = String(body.Username);
      if (body.MessageAction === 'RESEND') {
        const existing = user(username);
        if (existing.status !== 'FORCE_CHANGE_PASSWORD')
          throw new CognitoFault('UnsupportedUserStateException', 'User is not in the FORCE_CHANGE_PASSWORD state.');
        byEmail(body);
        existing.invitations.push(existing.attributes.email!);
        return { User: { Username: username, UserStatus: existing.status } };
      }
      if (users.has(username)) throw new CognitoFault('UsernameExistsException', 'User account already exists.');
      byEmail(body);
      const attributes = Object.fromEntries(
        (body.UserAttributes as { Name: string; Value: string }[]).map((a) => [a.Name, a.Value]),
      );
      users.set(username, {
        attributes,
        status: 'FORCE_CHANGE_PASSWORD',
        groups: new Set(),
        invitations: [attributes.email!],
      });
      return { User: { Username: username, UserStatus: 'FORCE_CHANGE_PASSWORD' } };
    },
    AdminAddUserToGroup(body) {
      if (!groupSet.has(String(body.GroupName)))
        throw new CognitoFault('ResourceNotFoundException', 'Group not found.');
      user(String(body.Username)).groups.add(String(body.GroupName));
      return {};
    },
  };

  const server = createServer((req, res) => {
    void readBody(req).then((text) => {
      const target = String(req.headers['x-amz-target'] ?? '');
      const operation = target.replace(/^AWSCognitoIdentityProviderService\./, '');
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(JSON.stringify(body));
      };
      if (
        !/^AWS4-HMAC-SHA256 Credential=[^/]+\/\d{8}\/[a-z0-9-]+\/cognito-idp\/aws4_request/.test(
          String(req.headers.authorization),
        )
      )
        return answer(400, { __type: 'MissingAuthenticationTokenException', message: 'Missing SigV4 signature.' });
      const handler = target.startsWith('AWSCognitoIdentityProviderService.') ? operations[operation] : undefined;
      if (req.method !== 'POST' || !handler)
        return answer(400, { __type: 'UnknownOperationException', message: `Unknown operation ${target}` });
      const body = JSON.parse(text) as Record<string, unknown>;
      calls.push({ target: operation, body });
      try {
        if (body.UserPoolId !== userPoolId)
          throw new CognitoFault('ResourceNotFoundException', 'User pool does not exist.');
        answer(200, handler(body));
      } catch (e) {
        if (!(e instanceof CognitoFault)) throw e;
        answer(400, { __type: e.type, message: e.message });
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    userPoolId,
    users,
    groups: groupSet,
    calls,
    async stop() {
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
