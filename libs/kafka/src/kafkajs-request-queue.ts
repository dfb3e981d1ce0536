/**
 * kafkajs 2.2.4 (its last release) schedules its request queue's next check with `setTimeout(fn, throttledUntil -
 * Date.now())`, which is negative whenever the queue is not throttled (throttledUntil is -1 then). Node runs such a
 * timer after 1 ms; Node 20 did so silently, Node 24 also prints a `TimeoutNegativeWarning` to stderr, once per
 * process: a stray line in every log, and in the one-line errors of the CLI. This replaces that one method with
 * the same logic and the delay floored at 0 (which Node also runs after 1 ms, without a warning). Loaded by
 * `@flaglens/kafka`, so every kafkajs client in the process (kafkajs is one module) has it.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const RequestQueue = require('kafkajs/src/network/requestQueue') as {
  prototype: {
    scheduleCheckPendingRequests?: () => void;
  };
};

/** kafkajs' own interval for a queue with pending requests and no throttle end to wait for (ms). */
const CHECK_PENDING_REQUESTS_INTERVAL = 10;

interface Queue {
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  pending: unknown[];
  checkPendingRequests(): void;
}

const proto = RequestQueue.prototype;
if (typeof proto.scheduleCheckPendingRequests !== 'function') {
  throw new Error('kafkajs: RequestQueue.scheduleCheckPendingRequests is gone; see kafkajs-request-queue.ts');
}
proto.scheduleCheckPendingRequests = function (this: Queue) {
  let scheduleAt = this.throttledUntil - Date.now();
  if (!this.throttleCheckTimeoutId) {
    if (this.pending.length > 0) {
      scheduleAt = scheduleAt > 0 ? scheduleAt : CHECK_PENDING_REQUESTS_INTERVAL;
    }
    this.throttleCheckTimeoutId = setTimeout(
      () => {
        this.throttleCheckTimeoutId = null;
        this.checkPendingRequests();
      },
      Math.max(scheduleAt, 0),
    );
  }
};

export {};
