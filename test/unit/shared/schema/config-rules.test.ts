// Configuration rules that keep keys apart and bound what a space accepts (docs/contract.md §5, §10).
import { describe, expect, it } from '@jest/globals';
import {
  acceptsV1At,
  ConfigError,
  judgedSpacesWithoutRepos,
  parseConfig,
  referenceShown,
  repoAllowed,
} from '#schema/config.ts';

const refusal = (input: unknown): string => {
  try {
    parseConfig(input);
  } catch (e) {
    if (e instanceof ConfigError) return e.message;
    throw e;
  }
  throw new Error('the configuration was accepted');
};

describe('host names in the configuration', () => {
  it.each([
    ['a ":" in a host', { A: { senders: ['mac:1'] } }, /spaces\.A\.senders\.0: .*":"/],
    ['a "__" in a host', { A: { senders: ['mac__1'] } }, /spaces\.A\.senders\.0: .*"__"/],
    [
      'a character Secrets Manager refuses',
      { A: { senders: ['mac-1', 'mac#2'] } },
      /spaces\.A\.senders\.1: .*Secrets Manager/,
    ],
    ['a non-ASCII letter', { A: { senders: ['macé'] } }, /spaces\.A\.senders\.0: may hold only letters, digits/],
  ])('refuses %s with a sentence naming the key', (_what, spaces, pattern) => {
    expect(refusal({ spaces })).toMatch(pattern);
  });

  it("refuses a host whose key would be another space's fleet-wide value", () => {
    const message = refusal({
      spaces: {
        A: { senders: ['mac-1'], secretConfigKey: 'Hosting:Report' },
        B: { senders: ['mac-2'], secretConfigKey: 'Hosting:Report:mac-1' },
      },
    });
    expect(message).toMatch(/Hosting:Report:mac-1/);
    expect(message).toMatch(/same key/);
  });

  it('refuses two secretConfigKeys that map one host to the same key file or environment variable', () => {
    const message = refusal({
      spaces: {
        A: { senders: ['mac-1'], secretConfigKey: 'Hosting:Report' },
        B: { senders: ['mac-1'], secretConfigKey: 'Hosting__Report' },
      },
    });
    expect(message).toMatch(/Hosting__Report__mac-1/);
  });

  it('accepts every character a Secrets Manager name takes', () => {
    expect(() => parseConfig({ spaces: { A: { senders: ['Mac_mini+2=a.b@lab-1'] } } })).not.toThrow();
  });

  it('accepts one host listed by two spaces under one secretConfigKey (one key, one identity)', () => {
    expect(() =>
      parseConfig({ spaces: { A: { senders: ['mac-1'] }, B: { senders: ['mac-1', 'mac-2'] } } }),
    ).not.toThrow();
  });
});

describe('space names in the configuration', () => {
  it('refuses a "#", which separates the parts of a table key, with a sentence naming the space', () => {
    expect(refusal({ spaces: { 'A#B': { senders: ['mac-1'] } } })).toMatch(/spaces\.A#B: .*"#"/);
  });
});

describe("a space's repository allowlist", () => {
  const config = parseConfig({
    spaces: {
      Listed: { senders: ['h'], repos: ['Acme/Widgets'] },
      Open: { senders: ['h'] },
      Closed: { senders: ['h'], repos: [] },
    },
  });

  it('allows listed repositories, compared without regard to case', () => {
    expect(repoAllowed(config.spaces.Listed!, 'acme/widgets')).toBe(true);
    expect(repoAllowed(config.spaces.Listed!, 'acme/gadgets')).toBe(false);
  });

  it('allows any repository when absent and none when empty', () => {
    expect(repoAllowed(config.spaces.Open!, 'anyone/anything')).toBe(true);
    expect(repoAllowed(config.spaces.Closed!, 'acme/widgets')).toBe(false);
  });

  it('refuses an entry that is not "owner/name"', () => {
    expect(refusal({ spaces: { A: { senders: ['h'], repos: ['widgets'] } } })).toMatch(/spaces\.A\.repos\.0/);
  });
});

describe("a space's minKeyBytes", () => {
  it.each([
    ['zero', 0],
    ['a negative number', -32],
    ['a fraction', 31.5],
    ['a string', '32'],
  ])('refuses %s with a sentence naming the key', (_what, minKeyBytes) => {
    expect(refusal({ spaces: { A: { senders: ['mac-1'], minKeyBytes } } })).toMatch(/spaces\.A\.minKeyBytes: /);
  });

  it('accepts any whole number from 1, and is absent unless given', () => {
    expect(parseConfig({ spaces: { A: { senders: ['mac-1'], minKeyBytes: 1 } } }).spaces.A!.minKeyBytes).toBe(1);
    expect(parseConfig({ spaces: { A: { senders: ['mac-1'], minKeyBytes: 32 } } }).spaces.A!.minKeyBytes).toBe(32);
    expect(parseConfig({ spaces: { A: { senders: ['mac-1'] } } }).spaces.A!.minKeyBytes).toBeUndefined();
  });
});

describe("a space's signature settings", () => {
  const space = (settings: Record<string, unknown>) =>
    parseConfig({ spaces: { A: { senders: ['mac-1'], ...settings } } }).spaces.A!;

  it.each([
    ['a date with a time', { acceptV1Until: '2027-01-31T00:00:00Z' }, 'acceptV1Until'],
    ['a day that is not in the calendar', { acceptV1Until: '2027-02-30' }, 'acceptV1Until'],
    ['a date as a number', { acceptV1Until: 20270131 }, 'acceptV1Until'],
    ['a tolerance of zero', { timestampToleranceSeconds: 0 }, 'timestampToleranceSeconds'],
    ['a fractional tolerance', { timestampToleranceSeconds: 2.5 }, 'timestampToleranceSeconds'],
  ])('refuses %s with a sentence naming the key', (_what, settings, key) => {
    expect(refusal({ spaces: { A: { senders: ['mac-1'], ...settings } } })).toMatch(
      new RegExp(`spaces\\.A\\.${key}: `),
    );
  });

  it('tolerates five minutes of clock difference unless told otherwise', () => {
    expect(space({}).timestampToleranceSeconds).toBe(300);
    expect(space({ timestampToleranceSeconds: 900 }).timestampToleranceSeconds).toBe(900);
  });

  it('takes v1 signatures through the whole acceptV1Until day (UTC), and never without it', () => {
    const migrating = space({ acceptV1Until: '2027-01-31' });
    expect(acceptsV1At(migrating, new Date('2027-01-31T23:59:59.999Z'))).toBe(true);
    expect(acceptsV1At(migrating, new Date('2027-02-01T00:00:00.000Z'))).toBe(false);
    expect(acceptsV1At(space({}), new Date('2000-01-01T00:00:00Z'))).toBe(false);
  });
});

describe("a cockpit's original fixes (showReference)", () => {
  const config = parseConfig({
    spaces: { Open: { senders: ['h'] }, Team: { senders: ['h'] }, Shown: { senders: ['h'] }, Bare: { senders: ['h'] } },
    cockpits: {
      Published: { space: 'Open', public: true },
      Signed: { space: 'Team' },
      PublishedWithFixes: { space: 'Shown', public: true, showReference: true },
      SignedWithout: { space: 'Bare', showReference: false },
    },
  });

  it('are hidden by a public cockpit and shown by a private one unless the configuration says otherwise', () => {
    expect(Object.fromEntries(Object.entries(config.cockpits).map(([n, c]) => [n, c.showReference]))).toEqual({
      Published: false,
      Signed: true,
      PublishedWithFixes: true,
      SignedWithout: false,
    });
  });

  it("are served for a space only where one of the read API's cockpits shows them", () => {
    expect(['Open', 'Team', 'Shown', 'Bare', 'Nowhere'].filter((s) => referenceShown(config, s))).toEqual([
      'Team',
      'Shown',
    ]);
  });

  it('must be a boolean', () => {
    expect(
      refusal({ spaces: { A: { senders: ['h'] } }, cockpits: { C: { space: 'A', showReference: 'yes' } } }),
    ).toMatch(/cockpits\.C\.showReference/);
  });
});

describe('judged spaces without a repository list', () => {
  it('are the spaces with a daily cap above 0 and no "repos" (an empty list restricts too)', () => {
    const config = parseConfig({
      spaces: {
        Open: { senders: ['h'] },
        Listed: { senders: ['h'], repos: ['acme/widgets'] },
        Closed: { senders: ['h'], repos: [] },
        Unjudged: { senders: ['h'], judge: { dailyCap: 0 } },
      },
    });
    expect(judgedSpacesWithoutRepos(config)).toEqual(['Open']);
  });
});

describe('configuration maps', () => {
  it('treat prototype names as unknown spaces, not as entries', () => {
    const config = parseConfig({ spaces: { A: { senders: ['h'] } } });
    expect(Object.hasOwn(config.spaces, 'constructor')).toBe(false);
    expect(refusal({ spaces: { A: { senders: ['h'] } }, cockpits: { C: { space: 'toString' } } })).toMatch(
      /unknown space "toString"/,
    );
  });
});

describe('a domain in the configuration', () => {
  const COCKPITS = 'arn:aws:acm:us-east-1:123456789012:certificate/abc';
  const spaces = { S: { senders: ['mac-1'] } };

  it('is accepted with a hosted zone, or with an ingest certificate instead', () => {
    expect(
      parseConfig({
        spaces,
        cockpits: { C: { space: 'S' } },
        domain: { name: 'bench.example.com', hostedZoneId: 'Z123ABC', cockpitCertificateArn: COCKPITS },
      }).domain,
    ).toEqual({ name: 'bench.example.com', hostedZoneId: 'Z123ABC', cockpitCertificateArn: COCKPITS });
    expect(() =>
      parseConfig({
        spaces,
        domain: { name: 'bench.example.com', ingestCertificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/x' },
      }),
    ).not.toThrow();
  });

  it.each([
    [
      'no way to a certificate for ingest',
      { name: 'bench.example.com' },
      /domain\.ingestCertificateArn: is needed for ingest\.bench\.example\.com/,
    ],
    [
      'cockpits without their certificate',
      { name: 'bench.example.com', hostedZoneId: 'Z1' },
      /domain\.cockpitCertificateArn: is needed/,
    ],
    [
      'a cockpit certificate outside us-east-1',
      {
        name: 'bench.example.com',
        hostedZoneId: 'Z1',
        cockpitCertificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc',
      },
      /domain\.cockpitCertificateArn: must be an ACM certificate ARN in us-east-1/,
    ],
    [
      'an upper-case name',
      { name: 'Bench.Example.com', hostedZoneId: 'Z1', cockpitCertificateArn: COCKPITS },
      /domain\.name: must be a lower-case DNS name/,
    ],
  ])('refuses %s with a sentence', (_what, domain, message) => {
    expect(refusal({ spaces, cockpits: { C: { space: 'S' } }, domain })).toMatch(message);
  });

  it('refuses two cockpits whose names would be one host name', () => {
    expect(
      refusal({
        spaces,
        cockpits: { Small_Models: { space: 'S' }, 'small-models': { space: 'S' } },
        domain: { name: 'bench.example.com', hostedZoneId: 'Z1', cockpitCertificateArn: COCKPITS },
      }),
    ).toMatch(/gives cockpits Small_Models and small-models the same name small-models\.bench\.example\.com/);
  });
});

describe('adopted table and buckets', () => {
  const spaces = { S: { senders: ['mac-1'] } };

  it('are named by their AWS names', () => {
    expect(
      parseConfig({ spaces, adopt: { table: 'replay-bench-restored', dataBucket: 'replay-bench-data-1' } }).adopt,
    ).toEqual({
      table: 'replay-bench-restored',
      dataBucket: 'replay-bench-data-1',
    });
  });

  it.each([
    [{ dataBucket: 'Replay_Bench' }, /adopt\.dataBucket: must be an S3 bucket name/],
    [{ table: 'a b' }, /adopt\.table: must be a DynamoDB table name/],
    [{ queue: 'q' }, /adopt: Unrecognized key/],
  ])('refuse %j with a sentence', (adopt, message) => {
    expect(refusal({ spaces, adopt })).toMatch(message);
  });
});
