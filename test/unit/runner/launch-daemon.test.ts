// The Mac side of docs/runner.md, as a runner host's operator copies it: the LaunchDaemon is a well-formed
// property list that runs replay-push for one space as the runner's user (a LaunchAgent would run only while
// someone is logged in), and the commands around it create the key folder 0700, unload before loading and
// rotate the log.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { XMLParser, XMLValidator } from 'fast-xml-parser';

const doc = readFileSync(new URL('../../../docs/runner.md', import.meta.url), 'utf8');
const plist = /```xml\n([\s\S]*?)```/.exec(doc)![1]!;

/** A plist <dict> as key → value, in order (the parser keeps keys and values as sibling lists). */
function dictOf(xml: string): Map<string, unknown> {
  const parsed = new XMLParser({ preserveOrder: true, ignoreAttributes: true, commentPropName: '#comment' }).parse(xml);
  const root = (parsed as Record<string, unknown[]>[]).find((n) => 'plist' in n)!.plist as Record<string, unknown>[];
  const dict = root.find((n) => 'dict' in n)!.dict as Record<string, { '#text'?: unknown }[]>[];
  const entries = dict.filter((n) => !('#comment' in n));
  const map = new Map<string, unknown>();
  for (let k = 0; k < entries.length; k += 2) {
    const key = String(entries[k]!.key![0]!['#text']);
    const [type, value] = Object.entries(entries[k + 1]!)[0]!;
    const items = type === 'array' ? (value as Record<string, unknown>[]).filter((v) => !('#comment' in v)) : null;
    map.set(key, items ? items.map((v) => Object.values(v)[0]) : value);
  }
  return map;
}

describe('the LaunchDaemon in docs/runner.md', () => {
  it('is a well-formed property list', () => {
    expect(XMLValidator.validate(plist)).toBe(true);
  });

  it('runs replay-push sync for one space as the runner user, with a private umask and a log', () => {
    const dict = dictOf(plist);
    expect(dict.get('Label')).toEqual([{ '#text': expect.stringMatching(/\.SmallModelsMeasurements$/) }]);
    expect(dict.get('UserName')).toEqual([{ '#text': 'runner' }]);
    expect(dict.get('Umask')).toEqual([{ '#text': 63 }]);
    const args = (dict.get('ProgramArguments') as { '#text': unknown }[][]).map((v) => v[0]!['#text']);
    expect(args.slice(0, 4)).toEqual([
      '/opt/homebrew/bin/node',
      '/Users/runner/replay/replay-push.mjs',
      'sync',
      '/Users/runner/replay/runs/SmallModelsMeasurements',
    ]);
    expect(args).toEqual(expect.arrayContaining(['--host', '--key-file']));
    expect(dict.has('StandardOutPath')).toBe(true);
  });

  it('comes with the commands an operator needs: a 0700 key folder, bootout before bootstrap, both Homebrew paths, log rotation', () => {
    expect(doc).toMatch(/install -d -m 0700 .*\.replay/);
    expect(doc.indexOf('launchctl bootout system/')).toBeGreaterThan(-1);
    expect(doc.indexOf('launchctl bootout system/')).toBeLessThan(doc.indexOf('launchctl bootstrap system'));
    expect(doc).toContain('/opt/homebrew/bin/node');
    expect(doc).toContain('/usr/local/bin/node');
    expect(doc).toContain('/etc/newsyslog.d/replay-push.conf');
  });
});
