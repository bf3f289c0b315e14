import { describe, expect, it } from '@jest/globals';
import { issueRecordSchema } from '#schema/issue.ts';
import { runId, runnerRowSchema } from '#schema/run.ts';
import { harnessKeepsIdsApart } from '#schema/run-id.ts';
import { parseDelivery } from '#core/ingest/accept-delivery.ts';
import { parseConfig, ConfigError } from '#schema/config.ts';
import { issueDelivery, runDelivery, runnerRow } from '../../../helpers/deliveries.ts';

const raw = (value: unknown) => Buffer.from(JSON.stringify(value));

describe('run id rule', () => {
  it('joins model, task and harness with "__", replacing ":" and "/" in the model', () => {
    expect(runId({ model: 'mlx-community/Qwen3:8b', taskId: 'acme__widgets-42', harnessVersion: 'h2' })).toBe(
      'mlx-community_Qwen3_8b__acme__widgets-42__h2',
    );
  });

  it('keeps spaces in model names (ids are never parsed back)', () => {
    expect(runId({ model: 'Kimi - paper', taskId: 't1', harnessVersion: 'h1' })).toBe('Kimi - paper__t1__h1');
  });

  it.each([
    ['a model with "__"', { model: 'm2__acme', taskId: 'x' }, 'row.model'],
    ['a model whose ":" and "_" make "__"', { model: 'm2:_acme', taskId: 'x' }, 'row.model'],
    ['a model whose id form ends with "_"', { model: 'qwen3:', taskId: '_x' }, 'row.model'],
    ['a harness version with "__"', { taskId: 'x', harnessVersion: 'h__2' }, 'row.harnessVersion'],
    ['a harness version starting with "_"', { taskId: 'x_', harnessVersion: '_h2' }, 'row.harnessVersion'],
    // acme__widgets-42__h2 under harness s2 would be sample 2 of acme__widgets-42 under h2.
    [
      "a harness version that is a sample's ending",
      { taskId: 'acme__widgets-42__h2', harnessVersion: 's2' },
      'row.harnessVersion',
    ],
  ])('refuses %s, which would give another run its id, naming the field', (_what, overrides, field) => {
    const delivery = runDelivery(overrides);
    const parsed = parseDelivery(raw(delivery), 'mac-studio-1');
    expect(parsed).toMatchObject({ ok: false, details: [expect.stringMatching(new RegExp(`^${field}: .*__`))] });
  });

  it('gives a sample k > 1 an id no other run can have: no harness version is "s" and a number', () => {
    expect(runId({ model: 'm', taskId: 'acme__widgets-42', harnessVersion: 'h2', sample: 2 })).toBe(
      'm__acme__widgets-42__h2__s2',
    );
    for (const harnessVersion of ['s2', 's10']) expect(harnessKeepsIdsApart(harnessVersion)).toBe(false);
    for (const harnessVersion of ['s', 'S2', 's2b', 'v2', 'sweep-2'])
      expect(harnessKeepsIdsApart(harnessVersion)).toBe(true);
  });

  it('keeps the "__" of SWE-bench task ids, and "_" inside model and harness names', () => {
    const delivery = runDelivery({ model: 'qwen_3:8b', taskId: '_acme__widgets-42_', harnessVersion: 'h_2' });
    expect(parseDelivery(raw(delivery), 'mac-studio-1')).toMatchObject({ ok: true });
    expect(delivery.id).toBe('qwen_3_8b___acme__widgets-42___h_2');
  });
});

describe('run row schema', () => {
  it('stores every figure the runner did not send as null, never 0', () => {
    const row = runnerRowSchema.parse(runnerRow());
    expect(row.promptTokens).toBeNull();
    expect(row.bashCalls).toBeNull();
    expect(row.tier).toBeNull();
    expect(row.steps).toBe(17);
  });

  it('normalises timestamps to UTC instants', () => {
    const row = runnerRowSchema.parse(runnerRow({ finishedAt: '2026-11-20T12:12:00+02:00' }));
    expect(row.finishedAt).toBe('2026-11-20T10:12:00.000Z');
  });

  it.each([
    ['a finish in year −1 in UTC', { finishedAt: '0000-01-01T00:00:00+00:01' }],
    ['negative counts', { steps: -1 }],
    ['fractional counts', { bashCalls: 1.5 }],
    ['a task id with a slash', { taskId: 'a/b' }],
    ['a host with whitespace', { host: 'mac studio' }],
    ['a model with a bidi override', { model: 'qwen\u202e3' }],
    ['a model with a control character', { model: 'qwen\u00073' }],
    ['an unknown outcome', { outcome: 'crashed' }],
    ['a local time without offset', { finishedAt: '2026-11-20 10:12' }],
  ])('refuses %s', (_what, overrides) => {
    expect(runnerRowSchema.safeParse(runnerRow(overrides)).success).toBe(false);
  });
});

describe('identity strings (model, host, task id, harness version)', () => {
  it.each([
    ['a zero-width space in a model', { model: 'qwen3\u200b:8b' }],
    ['a zero-width joiner in a task id', { taskId: 'acme\u200d-42' }],
    ['a byte-order mark in a harness version', { harnessVersion: '\ufeffh2' }],
    ['a soft hyphen in a host', { host: 'mac\u00adstudio-1' }],
    ['a word joiner in a model', { model: 'qwen\u20603' }],
    ['a language tag in a model', { model: 'qwen3\u{e0041}' }],
    ['a line separator in a model', { model: 'qwen3\u2028b' }],
    ['a paragraph separator in a model', { model: 'qwen3\u2029b' }],
    ['the noncharacter U+FFFF, which no SQS message may hold, in a model', { model: 'qwen3\uffff8b' }],
    ['the noncharacter U+FDD0 in a task id', { taskId: 'acme\ufdd0-42' }],
  ])('refuse %s', (_what, overrides) => {
    const result = runnerRowSchema.safeParse(runnerRow(overrides));
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/format|line-separator|noncharacter/);
  });

  it('are NFC-normalised: a decomposed name and its composed form are one name, and one run id', () => {
    const decomposed = runnerRowSchema.parse(
      runnerRow({ model: 'Qwe\u0301n', taskId: 'cafe\u0301-1', harnessVersion: 'h\u0308', host: 'ma\u0301c' }),
    );
    expect(decomposed).toMatchObject({
      model: 'Qw\u00e9n',
      taskId: 'caf\u00e9-1',
      harnessVersion: '\u1e27',
      host: 'm\u00e1c',
    });
    const delivery = runDelivery({ model: 'Qwe\u0301n', host: 'mac-studio-1' });
    const parsed = parseDelivery(raw(delivery), 'mac-studio-1');
    expect(parsed.ok && 'delivery' in parsed && parsed.delivery.kind === 'run' && parsed.delivery.id).toBe(
      runId({ model: 'Qw\u00e9n', taskId: 'acme__widgets-42', harnessVersion: 'h2' }),
    );
  });

  it('are counted after normalising: 200 characters composed may be sent as more decomposed', () => {
    expect(runnerRowSchema.safeParse(runnerRow({ model: 'e\u0301'.repeat(200) })).success).toBe(true);
    expect(runnerRowSchema.safeParse(runnerRow({ model: '\u00e9'.repeat(201) })).success).toBe(false);
  });
});

describe('issue record', () => {
  it('has no member that could hold an issue title or body', () => {
    const members = Object.keys(issueRecordSchema.shape);
    expect(members.filter((k) => /title|body|text|description|comment|summary/i.test(k))).toEqual([]);
  });

  it('drops title and body keys in a delivery and names them as ignored', () => {
    const parsed = parseDelivery(
      raw(issueDelivery({ title: 'Client X cannot log in', body: 'secret details' })),
      'mac-studio-1',
    );
    expect(parsed.ok && 'delivery' in parsed).toBe(true);
    if (!parsed.ok || !('delivery' in parsed)) return;
    expect(parsed.ignored).toEqual(['issue.title', 'issue.body']);
    expect(JSON.stringify(parsed.delivery)).not.toMatch(/Client X|secret details/);
  });
});

describe('run delivery parsing', () => {
  it('drops keys a runner may not set and reports them', () => {
    const delivery = runDelivery(
      { judgeVerdict: 'resolved', hiddenTestResult: { status: 'pass' }, landedAt: 'x' },
      { extra: 1 },
    );
    const parsed = parseDelivery(raw(delivery), 'mac-studio-1');
    expect(parsed.ok && 'delivery' in parsed && parsed.ignored.sort()).toEqual([
      'extra',
      'row.hiddenTestResult',
      'row.judgeVerdict',
      'row.landedAt',
    ]);
    expect(parsed.ok && 'delivery' in parsed && 'judgeVerdict' in parsed.delivery).toBe(false);
  });

  it('refuses a body whose host is not the verifying host', () => {
    const parsed = parseDelivery(raw(runDelivery()), 'mac-mini-2');
    expect(parsed.ok).toBe(false);
  });

  it('refuses a row that names another host than the body', () => {
    const delivery = { ...runDelivery(), host: 'mac-mini-2' };
    const parsed = parseDelivery(raw(delivery), 'mac-mini-2');
    expect(!parsed.ok && parsed.details.join()).toMatch(/row\.host/);
  });

  it("refuses an id that is not the row's own", () => {
    const parsed = parseDelivery(raw({ ...runDelivery(), id: 'something-else' }), 'mac-studio-1');
    expect(!parsed.ok && parsed.details.join()).toMatch(/is not the row's own id/);
  });

  it('takes a check as a check, of the signing host only, with nothing else in it', () => {
    expect(parseDelivery(raw({ kind: 'check', host: 'mac-studio-1' }), 'mac-studio-1')).toEqual({
      ok: true,
      check: true,
    });
    const other = parseDelivery(raw({ kind: 'check', host: 'mac-mini-2' }), 'mac-studio-1');
    expect(!other.ok && other.details.join()).toMatch(/the body names "mac-mini-2"/);
    const extra = parseDelivery(raw({ kind: 'check', host: 'mac-studio-1', row: {} }), 'mac-studio-1');
    expect(!extra.ok && extra.message).toBe('The check delivery has the wrong shape.');
  });

  it('names an unknown delivery kind', () => {
    const parsed = parseDelivery(raw({ kind: 'heartbeat', host: 'mac-studio-1' }), 'mac-studio-1');
    expect(!parsed.ok && parsed.message).toMatch(/Unknown delivery kind "heartbeat"/);
  });
});

describe('configuration', () => {
  it('fills the documented defaults', () => {
    const config = parseConfig({ spaces: { S: { senders: ['h1'] } } });
    expect(config.spaces.S).toMatchObject({
      secretConfigKey: 'Hosting:ModuleReportSecret',
      judge: { dailyCap: 200, maxAttempts: 6, retryBaseSeconds: 900, mode: 'live' },
    });
    expect(config.defaultJudgeModel).toBe('claude-sonnet-5-5');
  });

  it('takes the judge mode live or batch, and refuses any other naming the key', () => {
    const space = (judge: unknown) => ({ spaces: { S: { senders: ['h1'], judge } } });
    expect(parseConfig(space({ mode: 'batch' })).spaces.S!.judge.mode).toBe('batch');
    expect(() => parseConfig(space({ mode: 'bulk' }))).toThrow(/spaces\.S\.judge\.mode/);
  });

  it('takes a cap across spaces and a monthly budget, the budget only with an email to send it to', () => {
    const spaces = { S: { senders: ['h1'] } };
    expect(parseConfig({ spaces, judgeDailyCapAllSpaces: 500 }).judgeDailyCapAllSpaces).toBe(500);
    expect(parseConfig({ spaces }).judgeDailyCapAllSpaces).toBeUndefined();
    expect(() => parseConfig({ spaces, judgeDailyCapAllSpaces: -1 })).toThrow(/judgeDailyCapAllSpaces/);
    expect(() => parseConfig({ spaces, judgeDailyCapAllSpaces: 2.5 })).toThrow(/judgeDailyCapAllSpaces/);
    const budget = { email: 'ops@example.com', monthlyBudgetUsd: 150 };
    expect(parseConfig({ spaces, alarms: budget }).alarms).toEqual(budget);
    expect(() => parseConfig({ spaces, alarms: { monthlyBudgetUsd: 150 } })).toThrow(
      /alarms\.email: is needed with monthlyBudgetUsd/,
    );
    for (const bad of [0, -5, '150'])
      expect(() => parseConfig({ spaces, alarms: { ...budget, monthlyBudgetUsd: bad } })).toThrow(
        /alarms\.monthlyBudgetUsd/,
      );
  });

  it('fails with a sentence naming the bad key', () => {
    expect(() => parseConfig({ spaces: { S: { senders: ['h1'], judge: { dailyCapp: 3 } } } })).toThrow(
      /spaces\.S\.judge.*dailyCapp/,
    );
    expect(() => parseConfig({ spaces: { S: { senders: 'h1' } } })).toThrow(ConfigError);
    expect(() => parseConfig({ spaces: { S: { senders: ['h1'] } }, cockpits: { C: { space: 'T' } } })).toThrow(
      /cockpits\.C\.space: names unknown space "T"/,
    );
  });
});
