import { existsSync } from 'node:fs';
import { CONNECT_POM } from './kafka-connect';

describe('the Kafka Connect harness (conformance:debezium, bench:debezium)', () => {
  it('finds the Maven project of the worker in the repository’s infra/connect', () => {
    expect(CONNECT_POM).toMatch(/\/infra\/connect\/pom\.xml$/);
    expect(existsSync(CONNECT_POM)).toBe(true);
  });
});
