// Where everything is stored: every object key and every DynamoDB key, index and prefix, with the parsers
// that read them back, in one module. The adapters, local mode, the CDK stacks (table definition, IAM
// conditions) and the tests all build keys here, so none can disagree with another about a layout.
//
// Ids and task ids are free text (they may contain `/`, `#` or `__`): inside a key they are always
// percent-encoded, so a prefix built for one id can never match another's objects or items.

import { sha256Hex } from '#shared/sha256.ts';

const encode = encodeURIComponent;

function decode(part: string): string | null {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}

// ---- Object storage ------------------------------------------------------------------------------------

/**
 * Inbox bucket: each accepted delivery, durable before its 202, deleted once landed. An entry is named by its
 * signer and the sha256 of its exact bytes (`inboxEntryName`), never by the sender's delivery id, so two
 * deliveries share a key only when they are the same body from the same host. Host names never hold `__`.
 * Entries named by delivery id (written before this rule) still drain.
 */
export const INBOX_PREFIX = 'inbox/';
export const inboxKey = (space: string, name: string) => `${INBOX_PREFIX}${space}/${name}.json`;
export const inboxEntryName = (host: string, bodySha256: string) => `${host}__${bodySha256}`;
export const inboxSpacePrefix = (space: string) => `${INBOX_PREFIX}${space}/`;

export function parseInboxKey(key: string): { space: string; deliveryId: string } | null {
  const match = /^inbox\/([^/]+)\/([^/]+)\.json$/.exec(key);
  return match ? { space: match[1]!, deliveryId: match[2]! } : null;
}

/** Data bucket: a run's objects live under its finishedAt, content-addressed, so nothing is ever overwritten. */
export const RUNS_PREFIX = 'runs/';
export const runSpacePrefix = (space: string) => `${RUNS_PREFIX}${space}/`;
export const runObjectPrefix = (space: string, id: string, finishedAt: string) =>
  `${runSpacePrefix(space)}${encode(id)}/${finishedAt}`;
/** How each kind of run object's name starts; its writer's grant is built from it (DATA_OBJECT_GRANTS). */
const RUN_OBJECT = {
  texts: 'texts-',
  patch: 'patch-',
  summary: 'summary-',
  contamination: 'contamination-',
  tests: 'tests-',
  audit: 'judge-',
} as const;
/** A run's patch and summary as one JSON object (core/run-texts.ts): one PUT at landing, one GET where both are read. */
export const runTextsKey = (space: string, id: string, finishedAt: string, textsSha256: string) =>
  `${runObjectPrefix(space, id, finishedAt)}/${RUN_OBJECT.texts}${textsSha256}.json`;
/** Where runs landed before their patch and summary were one object keep each (still read, never written). */
export const patchKey = (space: string, id: string, finishedAt: string, patchSha256: string) =>
  `${runObjectPrefix(space, id, finishedAt)}/${RUN_OBJECT.patch}${patchSha256}.diff`;
export const summaryKey = (space: string, id: string, finishedAt: string, summarySha256: string) =>
  `${runObjectPrefix(space, id, finishedAt)}/${RUN_OBJECT.summary}${summarySha256}.md`;
/** The full contamination list of a run whose row keeps only the first entries (docs/contract.md §4 bounds). */
export const contaminationKey = (space: string, id: string, finishedAt: string, listSha256: string) =>
  `${runObjectPrefix(space, id, finishedAt)}/${RUN_OBJECT.contamination}${listSha256}.json`;
/** The test names of a hidden-test result too long for the row to keep (docs/contract.md §4 bounds). */
export const testsKey = (space: string, id: string, finishedAt: string, namesSha256: string) =>
  `${runObjectPrefix(space, id, finishedAt)}/${RUN_OBJECT.tests}${namesSha256}.json`;
/** One judge attempt's exchange (never the prompt text, which holds the issue text). */
export const auditKey = (space: string, id: string, finishedAt: string, startedAt: string, attempt: number) =>
  `${runObjectPrefix(space, id, finishedAt)}/${RUN_OBJECT.audit}${startedAt}-attempt-${attempt}.json`;

export function parseRunObjectKey(key: string): { space: string; id: string; finishedAt: string; name: string } | null {
  const match = /^runs\/([^/]+)\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(key);
  const id = match ? decode(match[2]!) : null;
  return match && id !== null ? { space: match[1]!, id, finishedAt: match[3]!, name: match[4]! } : null;
}

/**
 * Data bucket: the judge's cache of merged fixes, kept per space: a fix fetched for one space is read by that
 * space's judge and read API only, so a space naming another's repository and SHAs never reads its cache.
 * The cache before it was per space lies under `reference/v1/` and `reference/v2/`, which nothing may read.
 * The version is bumped whenever what is cached changes (the lock-file list, say), so old entries are simply
 * not read.
 */
const REFERENCE_CACHE_VERSION = 'v2';
const REFERENCE_PREFIX = 'reference/';
export const REFERENCE_SPACES_PREFIX = `${REFERENCE_PREFIX}spaces/`;
export const referenceSpacePrefix = (space: string) => `${REFERENCE_SPACES_PREFIX}${space}/`;
export const referenceDiffKey = (space: string, repo: string, baseSha: string, mergeSha: string) =>
  `${referenceSpacePrefix(space)}${REFERENCE_CACHE_VERSION}/${repo}/${baseSha}...${mergeSha}.json`;

export function parseReferenceDiffKey(
  key: string,
): { space: string; repo: string; baseSha: string; mergeSha: string } | null {
  const match = /^reference\/spaces\/([^/]+)\/[^/]+\/([^/]+\/[^/]+)\/([^/.]+)\.\.\.([^/.]+)\.json$/.exec(key);
  return match ? { space: match[1]!, repo: match[2]!, baseSha: match[3]!, mergeSha: match[4]! } : null;
}

/**
 * Data bucket: the persisted runs snapshot of a space (core/read/snapshot-store.ts). The compactor writes
 * immutable parts under fresh names, then the manifest that names them; nothing is ever written over, and
 * what no manifest names any more expires (infra/aws/stateful-stack.ts).
 */
export const SNAPSHOTS_PREFIX = 'snapshots/';
/** Data bucket: the runs as Parquet parts the compactor adds per change set (core/read/run-dataset.ts). */
export const RUN_DATASET_PREFIX = 'runs-parquet/';
/** Data bucket: one space's parts of the run dataset (a Hive partition; the space encoded as in runPartKey). */
export const runDatasetSpacePrefix = (space: string) => `${RUN_DATASET_PREFIX}space=${encodeURIComponent(space)}/`;
/** Data bucket: where the Athena workgroups of a space's cockpits write query results, expired after a day. */
export const ATHENA_RESULTS_PREFIX = 'athena-results/';
export const athenaResultsPrefix = (space: string) => `${ATHENA_RESULTS_PREFIX}${space}/`;
export const snapshotSpacePrefix = (space: string) => `${SNAPSHOTS_PREFIX}${space}/`;
export const snapshotManifestKey = (space: string) => `${snapshotSpacePrefix(space)}manifest.json`;
/** One part of a snapshot, named by the compaction that wrote it (`name`) and its place among that one's parts. */
export const snapshotPartKey = (space: string, name: string, kind: 'runs' | 'columns') =>
  `${snapshotSpacePrefix(space)}parts/${name}.${kind === 'runs' ? 'runs.json' : 'columns.bin'}.gz`;
export const snapshotIssuesKey = (space: string, name: string) => `${snapshotSpacePrefix(space)}issues/${name}.json.gz`;
/** Where a daily rebuild the compactor's time cut short keeps how far it got (snapshot-store.ts). */
export const snapshotRebuildKey = (space: string) => `${snapshotSpacePrefix(space)}rebuild.json`;

/** Data bucket: exports too large for one answer, served by a short-lived link and expired after a day. */
export const EXPORTS_PREFIX = 'exports/';
export const exportSpacePrefix = (space: string) => `${EXPORTS_PREFIX}${space}/`;
export const EXPORT_LINK_DAYS = 1;

/**
 * What a space's read API may read and list in the data bucket: the space's run objects, its snapshot and
 * its reference cache (diffs of the tasks' repositories; never issue text). Space names hold no "/", so one
 * space's prefixes never cover another's.
 */
export const spaceReadPrefixes = (space: string) => [
  runSpacePrefix(space),
  snapshotSpacePrefix(space),
  referenceSpacePrefix(space),
];

/**
 * `text` as IAM reads it literally in a resource pattern or a `StringLike` condition: a space named `Team*` must
 * not be granted `Team-2`'s keys.
 */
export const iamLiteral = (text: string) => text.replace(/[*?$]/g, (c) => `\${${c}}`);

/** Object actions on key patterns of one bucket (`*`: any characters, "/" included); listing under `list` only. */
export interface KeyGrant {
  get: readonly string[];
  put: readonly string[];
  delete?: readonly string[];
  list: readonly string[];
  /** Keys written in parts by a service acting with the caller's credentials (Athena), which lists and aborts them. */
  multipart?: readonly string[];
}

/** Everything any of `grants` allows (none given: nothing), as one function holding them all has it. */
export const combinedGrant = (...grants: KeyGrant[]): KeyGrant => ({
  get: grants.flatMap((g) => g.get),
  put: grants.flatMap((g) => g.put),
  delete: grants.flatMap((g) => g.delete ?? []),
  list: grants.flatMap((g) => g.list),
  multipart: grants.flatMap((g) => g.multipart ?? []),
});

/**
 * The inbox's grants, by what a function does with it: ingest writes deliveries, the lander reads and deletes
 * them, the reconciler lists what is left (infra/aws: ingest.ts, land.ts).
 */
export const INBOX_GRANTS = {
  write: { get: [], put: ['*'], list: [] },
  'read-delete': { get: ['*'], put: [], delete: ['*'], list: ['*'] },
  list: { get: [], put: [], list: ['*'] },
} as const satisfies Record<string, KeyGrant>;

/**
 * What a space's read API may do in the data bucket (infra/aws/stateful-stack.ts `spaceObjectReads`), as key
 * patterns: read and list `spaceReadPrefixes`; write its exports too large for one answer and read them back; and,
 * as Athena acts with the caller's credentials, read and list the space's partition of the run dataset, write and
 * read the results its workgroup writes, and list an UNLOAD's export prefix to check it is empty. Athena writes
 * large results and UNLOAD files in parts, and lists and aborts those parts with the same credentials.
 */
export function spaceReadGrant(space: string): KeyGrant {
  const under = (prefix: string) => `${iamLiteral(prefix)}*`;
  const prefixes = spaceReadPrefixes(space).map(under);
  const exports = under(exportSpacePrefix(space));
  const results = under(athenaResultsPrefix(space));
  const queried = [under(runDatasetSpacePrefix(space)), results];
  return {
    get: [...prefixes, exports, ...queried],
    put: [exports, results],
    list: [...prefixes, ...queried, exports],
    multipart: [exports, results],
  };
}

/**
 * Who may do what in the data bucket, as key patterns (`*`: any characters, "/" included), one writer per kind of
 * object (infra/aws/stateful-stack.ts). A run object's pattern stars its space, id and finishedAt, then names the
 * kind: ids are encoded and instants hold no "/", so the patch pattern matches patches only. The lander, judge and
 * compactor serve every space, so their patterns name none (200 spaces would not fit one IAM policy).
 */
const anyRunObject = (kind: keyof typeof RUN_OBJECT) => `${RUNS_PREFIX}*/*/*/${RUN_OBJECT[kind]}*`;
export const DATA_OBJECT_GRANTS = {
  lander: {
    get: [],
    put: [anyRunObject('texts'), anyRunObject('contamination'), anyRunObject('tests')],
    list: [],
  },
  judge: {
    // The patch it judges and the summary its screen reads (core/judge/attempt.ts): one object, or two for runs
    // landed before they were one.
    get: [anyRunObject('texts'), anyRunObject('patch'), anyRunObject('summary'), `${REFERENCE_SPACES_PREFIX}*`],
    put: [anyRunObject('audit'), `${REFERENCE_SPACES_PREFIX}*`],
    list: [`${RUNS_PREFIX}*`, `${REFERENCE_SPACES_PREFIX}*`],
  },
  'snapshot-compactor': {
    get: [`${SNAPSHOTS_PREFIX}*`],
    put: [`${SNAPSHOTS_PREFIX}*`, `${RUN_DATASET_PREFIX}*`],
    // The run dataset's parts a sealed rebuild supersedes, and a finished rebuild's progress.
    delete: [`${RUN_DATASET_PREFIX}*`, snapshotRebuildKey('*')],
    list: [`${SNAPSHOTS_PREFIX}*`, `${RUN_DATASET_PREFIX}*`],
  },
} as const satisfies Record<string, KeyGrant>;
export type DataObjectUser = keyof typeof DATA_OBJECT_GRANTS;

// ---- The table -----------------------------------------------------------------------------------------

export const TABLE_KEYS = { partitionKey: 'pk', sortKey: 'sk' } as const;

/**
 * The table's time to live (epoch seconds): DynamoDB deletes an item within a few days after it passes. Only
 * bookkeeping items carry it, each kept as long as something reads it: a budget day past the longest `/budget`
 * window (366 days), a lease a day past its expiry, an inbox entry's re-enqueue count past the inbox's 14 days, a
 * note of a run waiting for its issue record two days past the run's last look (at most 6 hours apart).
 */
export const EXPIRY_ATTRIBUTE = 'deleteAfter';
export const EXPIRY_DAYS = {
  budgetDay: 400,
  lease: 1,
  reenqueueCount: 15,
  collectedJudgeBatch: 2,
  issueWaiter: 2,
} as const;
export const deleteAfter = (from: Date, days: number): number => Math.floor(from.getTime() / 1000) + days * 86_400;

/**
 * The table's indexes, each projecting only what its query reads (every write that touches an index copies what
 * it projects, and every rewrite of a run moves its `byUpdated` key: a delete and a put). `byUpdated` holds keys
 * only: the `since` deltas fetch the rows themselves from the table (dynamo-table.ts getMany). `due` holds what
 * the sweeper sends, the run's id and finishedAt. A projection cannot change in place, so these carry names of
 * their own; RETIRED_INDEXES are the ones they replace (docs/deploy.md, "Narrower indexes").
 */
export const INDEXES = {
  /** Runs, and apart from them issues, of a space by updatedAt: the `since` deltas the cockpit polls. */
  byUpdated: {
    name: 'byUpdatedKeys',
    partitionKey: 'byUpdatedPk',
    sortKey: 'byUpdatedSk',
    projection: 'KEYS_ONLY',
    include: [],
  },
  /** Sparse: only rows with a next judge attempt. The sweeper's "due by now" query. */
  due: {
    name: 'dueRuns',
    partitionKey: 'dueSpace',
    sortKey: 'dueAt',
    projection: 'INCLUDE',
    include: ['id', 'finishedAt'],
  },
  /** Runs of a space per host, keys only: counted for the hosts view. */
  byHost: { name: 'byHost', partitionKey: 'byHostPk', sortKey: 'sk', projection: 'KEYS_ONLY', include: [] },
} as const satisfies Record<string, TableIndex>;

export interface TableIndex {
  name: string;
  partitionKey: string;
  sortKey: string;
  projection: 'ALL' | 'KEYS_ONLY' | 'INCLUDE';
  /** The attributes an INCLUDE index projects beside the keys. */
  include: readonly string[];
}

/** The indexes INDEXES replaced: same keys, every attribute projected. A table made before keeps them until migrated. */
export const RETIRED_INDEXES = {
  byUpdated: { ...INDEXES.byUpdated, name: 'byUpdated', projection: 'ALL', include: [] },
  due: { ...INDEXES.due, name: 'due', projection: 'ALL', include: [] },
} as const satisfies Record<string, TableIndex>;

/**
 * The indexes of the table at each step of moving a table made with RETIRED_INDEXES to INDEXES. CloudFormation
 * adds or removes one index per update, and the functions read the new indexes from step 3 on, so the old ones
 * stay until then: 1 adds byUpdatedKeys, 2 adds dueRuns (the old functions still read the old two), 3 deploys
 * the functions that read the new ones, 4 removes byUpdated; without a step the table has INDEXES only (due removed).
 */
export const INDEX_MIGRATION_STEPS = [1, 2, 3, 4] as const;
export function tableIndexes(step?: number): TableIndex[] {
  if (step === undefined) return Object.values(INDEXES);
  if (!(INDEX_MIGRATION_STEPS as readonly number[]).includes(step))
    throw new Error(`the index migration step is one of ${INDEX_MIGRATION_STEPS.join(', ')}, not ${step}`);
  return [
    ...(step <= 3 ? [RETIRED_INDEXES.byUpdated] : []),
    RETIRED_INDEXES.due,
    INDEXES.byHost,
    INDEXES.byUpdated,
    ...(step >= 2 ? [INDEXES.due] : []),
  ];
}

/**
 * The steps a deployed table with these indexes still has to take (none for a table with today's, or none at all):
 * those after the first step whose indexes it has. A table at step 2 has the indexes of step 3 too, so step 3,
 * which deploys the functions that read the new indexes, is taken again rather than skipped.
 */
export function indexMigrationSteps(deployed: readonly string[] | null): number[] {
  if (deployed === null) return [];
  const names = (indexes: { name: string }[]) =>
    indexes
      .map((i) => i.name)
      .sort()
      .join(',');
  const at = names(deployed.map((name) => ({ name })));
  const before = [RETIRED_INDEXES.byUpdated, RETIRED_INDEXES.due, INDEXES.byHost];
  const reached = [0, ...INDEX_MIGRATION_STEPS].find((step) => names(step === 0 ? before : tableIndexes(step)) === at);
  return reached === undefined ? [] : INDEX_MIGRATION_STEPS.filter((step) => step > reached);
}

/** Attributes the store keeps beside a record; never part of the record itself. */
export const INTERNAL_ATTRIBUTES = [
  'pk',
  'sk',
  'rev',
  'byUpdatedPk',
  'byUpdatedSk',
  'dueSpace',
  'dueAt',
  'byHostPk',
  'kind',
  EXPIRY_ATTRIBUTE,
];

export interface ItemKey {
  pk: string;
  sk: string;
}

/** Every item of a space (runs, issues, held hidden-test results, archived attempts, its judging status). */
export const spacePartition = (space: string) => `SPACE#${space}`;
/** Partition-key prefixes that hold one space's data: what a per-space reader may touch (IAM LeadingKeys). */
export const spacePartitions = (space: string) => [spacePartition(space), budgetPartition(space)];

export const SORT_PREFIX = {
  run: 'RUN#',
  issue: 'ISSUE#',
  hiddenTest: 'HIDDEN#',
  attempt: 'ATTEMPT#',
  host: 'HOST#',
  issueWaiter: 'ISSUEWAIT#',
} as const;

export const runKey = (space: string, id: string): ItemKey => ({
  pk: spacePartition(space),
  sk: `${SORT_PREFIX.run}${id}`,
});
export const issueKey = (space: string, taskId: string): ItemKey => ({
  pk: spacePartition(space),
  sk: `${SORT_PREFIX.issue}${taskId}`,
});
/** The hidden-test results of one run held for it, one per sending host (the id and host encoded: either may hold `#`). */
export const pendingHiddenTestPrefix = (id: string) => `${SORT_PREFIX.hiddenTest}${encode(id)}#`;
export const pendingHiddenTestKey = (space: string, id: string, host: string): ItemKey => ({
  pk: spacePartition(space),
  sk: `${pendingHiddenTestPrefix(id)}${encode(host)}`,
});
/** The runs waiting for a task's issue record (the task and run ids encoded: either may hold `#`). */
export const issueWaiterPrefix = (taskId: string) => `${SORT_PREFIX.issueWaiter}${encode(taskId)}#`;
export const issueWaiterKey = (space: string, taskId: string, id: string): ItemKey => ({
  pk: spacePartition(space),
  sk: `${issueWaiterPrefix(taskId)}${encode(id)}`,
});
/**
 * Which host owns each task's issue record (the first that published it). A partition of its own per space, so
 * ingest may write claims here and nothing else (IAM LeadingKeys).
 */
export const ISSUE_OWNERS_PARTITION_PREFIX = 'ISSUEOWNERS#';
export const issueOwnerKey = (space: string, taskId: string): ItemKey => ({
  pk: `${ISSUE_OWNERS_PARTITION_PREFIX}${space}`,
  sk: taskId,
});
export const judgingKey = (space: string): ItemKey => ({ pk: spacePartition(space), sk: 'JUDGING' });
/** A Message Batch a batch-mode space's judge submitted and has not yet collected; listed by the prefix. */
export const JUDGE_BATCH_PREFIX = 'JUDGE-BATCH#';
export const judgeBatchKey = (space: string, batchId: string): ItemKey => ({
  pk: spacePartition(space),
  sk: `${JUDGE_BATCH_PREFIX}${batchId}`,
});
/** How often the inbox reconciliation queued each inbox entry again (core/landing/reconcile-inbox.ts): a partition of its own. */
export const REENQUEUE_PARTITION = 'INBOX-REENQUEUE';
export const reenqueueKey = (inboxKey: string): ItemKey => ({ pk: REENQUEUE_PARTITION, sk: inboxKey });

/** A job's lease (core/lease.ts): a partition of its own, so granting it grants no space's data. */
export const leasePartition = (name: string) => `LEASE#${name}`;
export const leaseKey = (name: string): ItemKey => ({ pk: leasePartition(name), sk: 'LEASE' });
/** The host record (a host as one space knows it): in that space's partition, so no other space's reader can see it. */
export const hostRecordKey = (space: string, host: string): ItemKey => ({
  pk: spacePartition(space),
  sk: `${SORT_PREFIX.host}${host}`,
});
const budgetPartition = (space: string) => `BUDGET#${space}`;
export const budgetKey = (space: string, day: string): ItemKey => ({ pk: budgetPartition(space), sk: day });
/** The day's judge calls of one host's runs in a space: a sort key outside the days `listDays` reads. */
export const hostBudgetKey = (space: string, host: string, day: string): ItemKey => ({
  pk: budgetPartition(space),
  sk: `HOST#${day}#${host}`,
});
/** The day's judge calls of every space together (no `#`: no space's partition, so no space's reader sees it). */
export const allSpacesBudgetKey = (day: string): ItemKey => ({ pk: 'BUDGET-ALL-SPACES', sk: day });

/** Archived attempts of one run sort by finishedAt under this prefix (the id encoded: ids may contain `#`). */
export const attemptPrefix = (id: string) => `${SORT_PREFIX.attempt}${encode(id)}#`;
/**
 * An attempt's item. One that is not the run's own (another run under the same id, another host's) also carries its
 * origin, so it never takes the place of, or is taken for, an attempt of the run with the same finishedAt and patch.
 */
export const attemptKey = (
  space: string,
  id: string,
  finishedAt: string,
  patchSha256: string,
  origin?: string,
): ItemKey => ({
  pk: spacePartition(space),
  sk: `${attemptPrefix(id)}${finishedAt}#${patchSha256}${origin ? `#${origin}` : ''}`,
});

/** The origin of an attempt kept apart (a collision, a foreign host's): a hash of its sender and its run. */
export const attemptOrigin = (attempt: {
  collision?: boolean;
  foreign?: boolean;
  host: string;
  model: string;
  taskId: string;
  harnessVersion: string;
}): string | undefined =>
  attempt.collision || attempt.foreign
    ? sha256Hex(JSON.stringify([attempt.host, attempt.model, attempt.taskId, attempt.harnessVersion])).slice(0, 16)
    : undefined;

/** The item key of an archived attempt, its origin included. */
export const archivedAttemptKey = (
  attempt: Parameters<typeof attemptOrigin>[0] & { space: string; id: string; finishedAt: string; patchSha256: string },
): ItemKey => attemptKey(attempt.space, attempt.id, attempt.finishedAt, attempt.patchSha256, attemptOrigin(attempt));

export function parseAttemptSortKey(
  sk: string,
): { id: string; finishedAt: string; patchSha256: string; origin: string | null } | null {
  const match = /^ATTEMPT#([^#]+)#([^#]+)#([^#]+)(?:#([^#]+))?$/.exec(sk);
  const id = match ? decode(match[1]!) : null;
  return match && id !== null ? { id, finishedAt: match[2]!, patchSha256: match[3]!, origin: match[4] ?? null } : null;
}

/** Index attributes of a run row. */
export const byUpdatedPartition = (space: string) => `RUNS#${space}`;
export const byUpdatedKey = (space: string, updatedAt: string, id: string) => ({
  byUpdatedPk: byUpdatedPartition(space),
  byUpdatedSk: `${updatedAt}#${id}`,
});
/** Index attributes of an issue record: the issues of a space by updatedAt, in the same index as its runs. */
export const issuesByUpdatedPartition = (space: string) => `ISSUES#${space}`;
export const issueByUpdatedKey = (space: string, updatedAt: string, taskId: string) => ({
  byUpdatedPk: issuesByUpdatedPartition(space),
  byUpdatedSk: `${updatedAt}#${encode(taskId)}`,
});
export const byHostPartition = (space: string, host: string) => `HOSTRUNS#${space}#${host}`;
