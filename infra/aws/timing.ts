// Function timeouts live here, not beside each function, because the queues in the stateful stack derive
// their visibility timeouts from them.
import { Duration } from 'aws-cdk-lib';

export const TIMEOUTS = {
  ingest: Duration.seconds(15),
  lander: Duration.seconds(30),
  readApi: Duration.seconds(15),
  // One model call plus the reference fetch; the Anthropic SDK call itself is bounded below this.
  judge: Duration.minutes(2),
  sweeper: Duration.minutes(1),
} as const;

/** AWS asks for six times the consumer's timeout, so a throttled batch is not handed out twice. */
export const visibilityFor = (consumerTimeout: Duration): Duration => Duration.seconds(consumerTimeout.toSeconds() * 6);

/** Receives before a message is set aside in its dead-letter queue. */
export const MAX_RECEIVES = 5;
