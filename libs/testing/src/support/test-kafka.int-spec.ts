import * as net from 'node:net';
import { Kafka, type ISocketFactory } from 'kafkajs';
import { BROKERS, createTestTopic, produce } from './test-kafka';

/**
 * A socket that never delivers the broker's answer to the first Produce request: the write reaches the log, the
 * client sees a request time-out and sends the batch again, as it does when a loaded broker answers late.
 * Requests are read from the client's writes (size, api key, version, correlation id); responses are dropped by
 * correlation id.
 */
function losingFirstProduceAnswer(): { socketFactory: ISocketFactory; dropped: () => number } {
  const PRODUCE = 0;
  const drop = new Set<number>();
  let dropped = 0;
  const socketFactory: ISocketFactory = ({ host, port, onConnect }) => {
    const socket = net.connect({ host, port }, onConnect);
    const write = socket.write.bind(socket) as (chunk: Buffer, ...rest: unknown[]) => boolean;
    socket.write = ((chunk: Buffer | string, ...rest: unknown[]) => {
      const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, 'binary');
      if (b.length >= 12 && b.readInt16BE(4) === PRODUCE && dropped === 0 && drop.size === 0)
        drop.add(b.readInt32BE(8));
      return write(b, ...rest);
    }) as typeof socket.write;
    const on = socket.on.bind(socket);
    let pending = Buffer.alloc(0);
    socket.on = ((event: string, listener: (...args: unknown[]) => void) => {
      if (event !== 'data') return on(event, listener);
      return on('data', (chunk: Buffer) => {
        pending = Buffer.concat([pending, chunk]);
        while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
          const frame = pending.subarray(0, 4 + pending.readInt32BE(0));
          pending = pending.subarray(frame.length);
          if (drop.delete(frame.readInt32BE(4))) dropped++;
          else listener(frame);
        }
      });
    }) as typeof socket.on;
    return socket;
  };
  return { socketFactory, dropped: () => dropped };
}

describe('produce (the tests’ producer, real Kafka)', () => {
  it('writes each message once when the broker’s answer is lost and the batch is sent again', async () => {
    const lossy = losingFirstProduceAnswer();
    const kafka = new Kafka({
      clientId: 'flaglens-test-lossy',
      brokers: [BROKERS],
      socketFactory: lossy.socketFactory,
      requestTimeout: 2000,
      retry: { initialRetryTime: 100, retries: 5 },
      logCreator: () => () => undefined,
    });
    const { topic, drop } = await createTestTopic(kafka, 'produce-once', 3);
    try {
      const messages = Array.from({ length: 12 }, (_, i) => ({ key: `k${i % 4}`, value: `v${i}` }));
      await produce(kafka, topic, messages);
      expect(lossy.dropped()).toBe(1);

      const admin = kafka.admin();
      await admin.connect();
      try {
        const ends = await admin.fetchTopicOffsets(topic);
        expect(ends.reduce((sum, p) => sum + Number(p.high), 0)).toBe(messages.length);
      } finally {
        await admin.disconnect();
      }
    } finally {
      await drop();
    }
  }, 60_000);
});
