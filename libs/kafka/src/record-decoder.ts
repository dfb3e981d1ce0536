/*
 * kafkajs' decoder of one record of a record batch (magic 2), without BigInt arithmetic for the common record.
 *
 * kafkajs (2.2) computes every record's offset and timestamp as `Long.fromValue(first).add(delta).toString()`
 * and reads the timestamp's delta with a BigInt per byte: about half of its decoding cost per record on the
 * projector's fetches (bench/decode.ts). Here the same fields come from plain numbers whenever every value
 * involved is a safe integer (offsets below 2^53, timestamps in milliseconds, deltas of at most seven varint
 * bytes) and the record has no headers; any other record is decoded by kafkajs' own function. The record object is the one kafkajs builds,
 * field for field (record-decoder.spec.ts checks it against kafkajs' decoder on generated batches).
 *
 * kafkajs offers no hook for its decoder, so `installRecordDecoder` puts this one in Node's module cache in place
 * of kafkajs' module before the batch decoder that requires it is loaded (kafkajs loads it lazily, on the first
 * fetch; jest's module registry offers the same cache). Where that cannot be done (the batch decoder already loaded,
 * another major or minor version of kafkajs, no module cache) kafkajs keeps its own decoder.
 */
/* eslint-disable @typescript-eslint/no-require-imports */

/** kafkajs' Decoder, as far as a record needs it. */
export interface KafkaDecoder {
  buffer: Buffer;
  offset: number;
  readInt8(): number;
  readVarInt(): number;
  readVarIntString(): string | null;
  readVarIntBytes(): Buffer | null;
}

/** The record batch's fields a record uses (kafkajs' `recordContext`; offsets and timestamps as strings). */
export interface RecordBatchContext {
  firstOffset: string;
  firstTimestamp: string;
  maxTimestamp: string;
  timestampType: number;
  magicByte?: number;
  isControlBatch?: boolean;
}

export type DecodeRecord = (decoder: KafkaDecoder, batchContext?: RecordBatchContext) => unknown;

const LOG_APPEND_TIME = 1; // kafkajs/src/protocol/timestampTypes

/** A varint's value when it fits in seven bytes (49 bits, zig-zag decoded), else undefined (offset untouched). */
function readSmallVarLong(decoder: KafkaDecoder): number | undefined {
  const buf = decoder.buffer;
  let at = decoder.offset;
  let raw = 0;
  let scale = 1;
  for (let i = 0; i < 7; i++) {
    const byte = buf[at++];
    if (byte === undefined) return undefined;
    raw += (byte & 0x7f) * scale;
    if (byte < 0x80) {
      decoder.offset = at;
      return raw % 2 === 0 ? raw / 2 : -(raw + 1) / 2;
    }
    scale *= 128;
  }
  return undefined;
}

/** A batch's first offset and timestamp as numbers, kept for the records of the batch that follow. */
let lastContext: RecordBatchContext | undefined;
let firstOffset = NaN;
let firstTimestamp = NaN;

/** A record decoder with kafkajs' results, falling back to `original` for any record it does not handle. */
export function fastRecordDecoder(original: DecodeRecord): DecodeRecord {
  return function decodeRecord(decoder, batchContext = {} as RecordBatchContext) {
    if (batchContext !== lastContext) {
      lastContext = batchContext;
      firstOffset = safeInteger(batchContext.firstOffset);
      firstTimestamp = safeInteger(batchContext.firstTimestamp);
    }
    const start = decoder.offset;
    const attributes = decoder.readInt8();
    const timestampDelta = readSmallVarLong(decoder);
    const offsetDelta = timestampDelta === undefined ? 0 : decoder.readVarInt();
    const offset = firstOffset + offsetDelta;
    const appendTime = batchContext.timestampType === LOG_APPEND_TIME && batchContext.maxTimestamp;
    const timestamp = appendTime ? 0 : firstTimestamp + (timestampDelta ?? 0);
    if (timestampDelta === undefined || !Number.isSafeInteger(offset) || !Number.isSafeInteger(timestamp)) {
      decoder.offset = start;
      return original(decoder, batchContext);
    }
    const key = decoder.readVarIntBytes();
    const value = decoder.readVarIntBytes();
    if (decoder.readVarInt() > 0) {
      // headers (none of our producers writes any): kafkajs' own object of them
      decoder.offset = start;
      return original(decoder, batchContext);
    }
    return {
      magicByte: batchContext.magicByte,
      attributes,
      timestamp: appendTime ? batchContext.maxTimestamp : String(timestamp),
      offset: String(offset),
      key,
      value,
      headers: {},
      isControlRecord: batchContext.isControlBatch === undefined ? false : batchContext.isControlBatch,
      batchContext,
    };
  };
}

/** A decimal string's value when it is a safe integer written as `String(n)` writes it, else NaN. */
function safeInteger(s: string | undefined): number {
  if (typeof s !== 'string') return NaN;
  const n = Number(s);
  return Number.isSafeInteger(n) && String(n) === s ? n : NaN;
}

const RECORD_DECODER = 'kafkajs/src/protocol/recordBatch/record/v0/decoder.js';
const BATCH_DECODER = 'kafkajs/src/protocol/recordBatch/v0/decoder.js';

/** Whether kafkajs decodes records with `fastRecordDecoder`, and if not, why. */
export type RecordDecoderState = 'installed' | 'no-module-cache' | 'already-loaded' | `kafkajs ${string}`;

let state: RecordDecoderState | undefined;

/** Puts `fastRecordDecoder` in place of kafkajs' record decoder, once per process (see the top of this file). */
export function installRecordDecoder(): RecordDecoderState {
  if (state) return state;
  const version = (require('kafkajs/package.json') as { version: string }).version;
  const cache = require.cache as NodeJS.Dict<NodeModule> | undefined;
  const recordPath = require.resolve(RECORD_DECODER);
  if (!/^2\.2\./.test(version)) state = `kafkajs ${version}`;
  else if (!cache || typeof cache !== 'object' || require.resolve(BATCH_DECODER) in cache)
    state = cache && require.resolve(BATCH_DECODER) in cache ? 'already-loaded' : 'no-module-cache';
  else {
    const original = require(recordPath) as DecodeRecord;
    const loaded = cache[recordPath];
    if (!loaded) state = 'no-module-cache';
    else {
      loaded.exports = fastRecordDecoder(original);
      state = 'installed';
    }
  }
  return state;
}
