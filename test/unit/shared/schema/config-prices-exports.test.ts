// The configuration's `prices` and per-space `exports.fields` (docs/contract.md §10): what they accept, how they
// normalise, and the sentence a wrong one is refused with.
import { describe, expect, it } from '@jest/globals';
import { ConfigError, exportFieldsOf, parseConfig } from '#schema/config.ts';
import { DEFAULT_EXPORT_FIELDS, EXPORT_FIELDS } from '#schema/export-fields.ts';

const space = (extra: Record<string, unknown> = {}) => ({ senders: ['mac-studio-1'], ...extra });

describe('export fields in the configuration', () => {
  it("default to the whole allowlist but the judge's reason, in the order of docs/contract.md §6", () => {
    const config = parseConfig({ spaces: { S: space() } });
    expect(exportFieldsOf(config, 'S')).toEqual(DEFAULT_EXPORT_FIELDS);
    expect(EXPORT_FIELDS.slice(0, 3)).toEqual(['id', 'model', 'modelFamily']);
    expect(EXPORT_FIELDS.at(-1)).toBe('runCostUsd');
    expect(EXPORT_FIELDS).toContain('judgeReason');
    expect(DEFAULT_EXPORT_FIELDS).toEqual(EXPORT_FIELDS.filter((f) => f !== 'judgeReason'));
  });

  it('narrow it to a subset kept in the allowlist order, whatever order they are written in', () => {
    const config = parseConfig({
      spaces: { S: space({ exports: { fields: ['hiddenTestStatus', 'taskId', 'model'] } }) },
    });
    expect(exportFieldsOf(config, 'S')).toEqual(['model', 'taskId', 'hiddenTestStatus']);
  });

  it('refuse the configuration with a sentence when a name is outside the allowlist', () => {
    const attempt = () => parseConfig({ spaces: { S: space({ exports: { fields: ['model', 'summary', 'patch'] } }) } });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(
      /spaces\.S\.exports\.fields: names "summary", "patch", which are not among the exportable fields \(id, model,/,
    );
  });

  it('refuse an empty list', () => {
    expect(() => parseConfig({ spaces: { S: space({ exports: { fields: [] } }) } })).toThrow(
      /at least one export field/,
    );
  });
});

describe('prices in the configuration', () => {
  it('are absent by default: every cost unknown', () => {
    expect(parseConfig({ spaces: { S: space() } }).prices).toEqual({});
  });

  it('take USD per million tokens per model, cache prices optional', () => {
    const prices = {
      'claude-sonnet-5-5': { inputPerMTok: 3, outputPerMTok: 15, cacheWritePerMTok: 3.75, cacheReadPerMTok: 0.3 },
      'qwen3:8b': { inputPerMTok: 0, outputPerMTok: 0 },
    };
    expect(parseConfig({ spaces: { S: space() }, prices }).prices).toEqual(prices);
  });

  it('refuse a negative or misspelt price with a sentence naming it', () => {
    expect(() =>
      parseConfig({ spaces: { S: space() }, prices: { m: { inputPerMTok: -1, outputPerMTok: 1 } } }),
    ).toThrow(/prices\.m\.inputPerMTok/);
    expect(() => parseConfig({ spaces: { S: space() }, prices: { m: { inputPerMtok: 1, outputPerMTok: 1 } } })).toThrow(
      /prices\.m.*inputPerMtok/,
    );
  });
});

describe('a price that is not a number of dollars', () => {
  it('refuses the configuration, naming the model and the field, for a negative, non-finite or missing amount', () => {
    const refusal = (price: Record<string, unknown>) => {
      try {
        parseConfig({ spaces: { S: space() }, prices: { 'gpt-5': price } });
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refusal({ inputPerMTok: -0.5, outputPerMTok: 10 })).toMatch(/prices\.gpt-5\.inputPerMTok: Too small/);
    expect(refusal({ inputPerMTok: Infinity, outputPerMTok: 10 })).toMatch(/prices\.gpt-5\.inputPerMTok: .*Infinity/);
    expect(refusal({ inputPerMTok: 1, outputPerMTok: NaN })).toMatch(/prices\.gpt-5\.outputPerMTok: .*NaN/);
    expect(refusal({ inputPerMTok: 1 })).toMatch(/prices\.gpt-5\.outputPerMTok: .*received undefined/);
    expect(refusal({ inputPerMTok: '1.25', outputPerMTok: 10 })).toMatch(/prices\.gpt-5\.inputPerMTok: .*string/);
    expect(refusal({ inputPerMTok: 1, outputPerMTok: 2, cacheReadPerMTok: -1 })).toMatch(
      /prices\.gpt-5\.cacheReadPerMTok: Too small/,
    );
  });
});
