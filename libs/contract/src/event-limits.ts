/**
 * Limits of the event contract. Those marked "spec" come from api-spec.md (2.1, 2.2, 8); the others are
 * ours, chosen so that one bad producer cannot push unbounded values into the projections.
 */

/** spec: event `id` is an integer >= 1. We also require a safe integer (JSON numbers above 2^53 - 1 lose precision). */
export const MIN_EVENT_ID = 1;
export const MAX_EVENT_ID = Number.MAX_SAFE_INTEGER;

/**
 * ours: the longest `type`, `createdBy`, `environment`, `project`, `featureName` (and SDK `appName`,
 * `instanceId`, ...) we accept. The reference system stores these in `varchar(255)` columns.
 */
export const MAX_TEXT_LENGTH = 255;

/** spec: tag `value` and `type` are 2 to 50 characters long. */
export const TAG_TEXT_MIN_LENGTH = 2;
export const TAG_TEXT_MAX_LENGTH = 50;

/** ours: at most this many tags on one event. */
export const MAX_TAGS_PER_EVENT = 1000;

/** ours: the largest message value `parseEvent` reads (bytes, UTF-8), unless told otherwise: 1 MiB. */
export const DEFAULT_MAX_EVENT_BYTES = 1_048_576;

/**
 * ours: how deep a message value may nest (the event object is level 1, `data` level 2). Projections walk
 * and serialise `data` recursively: 20,000 levels overflow the stack (`RangeError`). The reference's own
 * payloads nest a handful of levels (strategies, constraints, variants).
 */
export const MAX_EVENT_DEPTH = 64;

/** ours: how much of a JSON parser message a dead-letter reason keeps. */
export const MAX_PARSER_MESSAGE_LENGTH = 200;
