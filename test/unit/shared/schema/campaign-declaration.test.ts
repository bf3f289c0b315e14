// A cockpit's declared task population (issue 41, items 5 and 6): `cockpits.<name>.campaign` is checked by the one
// configuration schema, reaches the page through /api/cockpits, and the sentence to quote names it with the
// harness difference; the default demo declares SWE-bench Lite's 300 tasks.
import { describe, expect, it } from '@jest/globals';
import { LITE_CAMPAIGN } from '#demo/lite-campaign.ts';
import { sampleSentence } from '#analytics/comparison-sentence.ts';
import { cockpitEntries } from '#core/read/read-api.ts';
import { parseConfig } from '#schema/config.ts';

const withCampaign = (campaign: unknown) =>
  parseConfig({ spaces: { S: { senders: ['mac-1'] } }, cockpits: { Lite: { space: 'S', campaign } } });

describe('a cockpit’s campaign', () => {
  it('reaches /api/cockpits as declared, and as null when it is not', () => {
    expect(cockpitEntries(withCampaign(LITE_CAMPAIGN))[0]!.campaign).toEqual(LITE_CAMPAIGN);
    const none = parseConfig({ spaces: { S: { senders: ['mac-1'] } }, cockpits: { Lite: { space: 'S' } } });
    expect(cockpitEntries(none)[0]!.campaign).toBeNull();
  });

  it('is refused with a sentence naming the key when its population has no size or an unknown key', () => {
    expect(() => withCampaign({ population: { name: 'SWE-bench Lite', size: 0 } })).toThrow(
      /cockpits\.Lite\.campaign\.population\.size/,
    );
    expect(() => withCampaign({ population: { name: 'SWE-bench Lite', size: 300 }, tasks: 120 })).toThrow(
      /cockpits\.Lite\.campaign/,
    );
  });
});

describe('the sentence to quote, after its figures', () => {
  it('names the benchmark, the tasks in view and how they were chosen, and the harness difference', () => {
    expect(sampleSentence(LITE_CAMPAIGN, 120, ['moatless-20240623', 'swe-agent-20240402'])).toBe(
      `The tasks: 120 of the 300 of SWE-bench Lite, ${LITE_CAMPAIGN.sample}. The two ran different harnesses ` +
        '(moatless-20240623 and swe-agent-20240402): the difference mixes model and harness.',
    );
    expect(sampleSentence(LITE_CAMPAIGN, 40, ['h1', 'h1'])).toBe(
      `The tasks: 40 of the 300 of SWE-bench Lite, ${LITE_CAMPAIGN.sample}.`,
    );
    expect(sampleSentence(null, 40, ['h1', 'h1'])).toBe(
      'The tasks: 40 tasks in view; the cockpit declares no population they were drawn from.',
    );
  });
});
