// The synth nag.test.ts checks, run in a process of its own (`node --import tsx`, the cloud assembly into
// CDK_OUTDIR). aws-cdk-lib's built-in CloudFormation validation compiles a 9 MB WebAssembly module, and V8
// goes on optimizing it on background threads that a process waits for before it can exit: about a second,
// longer than jest gives a worker to exit before it kills the worker and reports a leak.
import { richConfig, synthesize } from './synth.ts';

synthesize(richConfig(), { checks: true }).app.synth();
