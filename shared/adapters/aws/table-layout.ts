// The single-table layout, shared by the DynamoDB adapter, local mode (which creates the table in the
// emulator) and the CDK stack, so the three can never disagree on a key or index name.
export const TABLE_KEYS = { partitionKey: 'pk', sortKey: 'sk' } as const;

export const INDEXES = {
  /** Runs of a space by updatedAt: the `since` deltas the cockpit polls. */
  byUpdated: { name: 'byUpdated', partitionKey: 'byUpdatedPk', sortKey: 'byUpdatedSk', projection: 'ALL' },
  /** Sparse: only rows with a next judge attempt. The sweeper's "due by now" query. */
  due: { name: 'due', partitionKey: 'dueSpace', sortKey: 'dueAt', projection: 'ALL' },
  /** Runs of a space per host, keys only: counted for the hosts view. */
  byHost: { name: 'byHost', partitionKey: 'byHostPk', sortKey: 'sk', projection: 'KEYS_ONLY' },
} as const;
