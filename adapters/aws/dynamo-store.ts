// DynamoDB adapter for every table-backed port: one table (keys in core/storage-layout.ts) behind the stores
// of runs, issues, hosts and the judge's budget and status, composed here so the wiring needs one object.
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { AWS_CALLS, type AwsCallTimeouts } from '#core/operations.ts';
import type {
  AttemptStore,
  BudgetStore,
  HostStore,
  IssueOwnerStore,
  IssueStore,
  JudgeBatchStore,
  JudgingStatusStore,
  RunStore,
} from '#core/ports.ts';
import { DynamoHostStore } from './dynamo-host-store.ts';
import { DynamoIssueStore } from './dynamo-issue-store.ts';
import { DynamoJudgingStore } from './dynamo-judging-store.ts';
import { DynamoRunStore } from './dynamo-run-store.ts';
import { DynamoTable } from './dynamo-table.ts';

export { dynamoClient } from './dynamo-table.ts';

export class DynamoStore
  implements
    RunStore,
    AttemptStore,
    IssueStore,
    IssueOwnerStore,
    HostStore,
    BudgetStore,
    JudgingStatusStore,
    JudgeBatchStore
{
  private readonly runs: DynamoRunStore;
  private readonly issues: DynamoIssueStore;
  private readonly hosts: DynamoHostStore;
  private readonly judging: DynamoJudgingStore;

  constructor(dynamo: DynamoDBDocumentClient, tableName: string, timeouts: AwsCallTimeouts = AWS_CALLS.standard) {
    const table = new DynamoTable(dynamo, tableName, timeouts);
    this.runs = new DynamoRunStore(table);
    this.issues = new DynamoIssueStore(table);
    this.hosts = new DynamoHostStore(table);
    this.judging = new DynamoJudgingStore(table);
  }

  getRun(...args: Parameters<RunStore['getRun']>) {
    return this.runs.getRun(...args);
  }
  putRun(...args: Parameters<RunStore['putRun']>) {
    return this.runs.putRun(...args);
  }
  listRuns(...args: Parameters<RunStore['listRuns']>) {
    return this.runs.listRuns(...args);
  }
  listDueRuns(...args: Parameters<RunStore['listDueRuns']>) {
    return this.runs.listDueRuns(...args);
  }
  countRunsByHost(...args: Parameters<RunStore['countRunsByHost']>) {
    return this.runs.countRunsByHost(...args);
  }

  archiveAttempt(...args: Parameters<AttemptStore['archiveAttempt']>) {
    return this.runs.archiveAttempt(...args);
  }
  listAttempts(...args: Parameters<AttemptStore['listAttempts']>) {
    return this.runs.listAttempts(...args);
  }
  setAttemptHiddenTest(...args: Parameters<AttemptStore['setAttemptHiddenTest']>) {
    return this.runs.setAttemptHiddenTest(...args);
  }

  putIssue(...args: Parameters<IssueStore['putIssue']>) {
    return this.issues.putIssue(...args);
  }
  getIssue(...args: Parameters<IssueStore['getIssue']>) {
    return this.issues.getIssue(...args);
  }
  listIssues(...args: Parameters<IssueStore['listIssues']>) {
    return this.issues.listIssues(...args);
  }
  putPendingHiddenTest(...args: Parameters<IssueStore['putPendingHiddenTest']>) {
    return this.issues.putPendingHiddenTest(...args);
  }
  getPendingHiddenTests(...args: Parameters<IssueStore['getPendingHiddenTests']>) {
    return this.issues.getPendingHiddenTests(...args);
  }
  putIssueWaiter(...args: Parameters<IssueStore['putIssueWaiter']>) {
    return this.issues.putIssueWaiter(...args);
  }
  getIssueWaiters(...args: Parameters<IssueStore['getIssueWaiters']>) {
    return this.issues.getIssueWaiters(...args);
  }

  claimIssue(...args: Parameters<IssueOwnerStore['claimIssue']>) {
    return this.issues.claimIssue(...args);
  }

  getHost(...args: Parameters<HostStore['getHost']>) {
    return this.hosts.getHost(...args);
  }
  putHost(...args: Parameters<HostStore['putHost']>) {
    return this.hosts.putHost(...args);
  }

  reserve(...args: Parameters<BudgetStore['reserve']>) {
    return this.judging.reserve(...args);
  }
  reserveAcrossSpaces(...args: Parameters<BudgetStore['reserveAcrossSpaces']>) {
    return this.judging.reserveAcrossSpaces(...args);
  }
  release(...args: Parameters<BudgetStore['release']>) {
    return this.judging.release(...args);
  }
  reserveForHost(...args: Parameters<BudgetStore['reserveForHost']>) {
    return this.judging.reserveForHost(...args);
  }
  releaseForHost(...args: Parameters<BudgetStore['releaseForHost']>) {
    return this.judging.releaseForHost(...args);
  }
  releaseAcrossSpaces(...args: Parameters<BudgetStore['releaseAcrossSpaces']>) {
    return this.judging.releaseAcrossSpaces(...args);
  }
  addCost(...args: Parameters<BudgetStore['addCost']>) {
    return this.judging.addCost(...args);
  }
  listDays(...args: Parameters<BudgetStore['listDays']>) {
    return this.judging.listDays(...args);
  }

  getJudgingStatus(...args: Parameters<JudgingStatusStore['getJudgingStatus']>) {
    return this.judging.getJudgingStatus(...args);
  }
  putJudgingStatus(...args: Parameters<JudgingStatusStore['putJudgingStatus']>) {
    return this.judging.putJudgingStatus(...args);
  }

  putJudgeBatch(...args: Parameters<JudgeBatchStore['putJudgeBatch']>) {
    return this.judging.putJudgeBatch(...args);
  }
  listJudgeBatches(...args: Parameters<JudgeBatchStore['listJudgeBatches']>) {
    return this.judging.listJudgeBatches(...args);
  }
  closeJudgeBatch(...args: Parameters<JudgeBatchStore['closeJudgeBatch']>) {
    return this.judging.closeJudgeBatch(...args);
  }
  recordBatchSpend(...args: Parameters<JudgeBatchStore['recordBatchSpend']>) {
    return this.judging.recordBatchSpend(...args);
  }
}
