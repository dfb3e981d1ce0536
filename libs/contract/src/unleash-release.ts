/**
 * Which Unleash release an event was read from, carried beside the event (not in it) as a Kafka header of
 * its message: the source connector tells the release line from Unleash's database (its `migrations`) or
 * API (`ui-config`'s version); the projector stores the release of the newest event it applies; where the
 * supported releases answer a question differently, flaglens answers as that release.
 */
export const RELEASE_HEADER = 'flaglens-unleash-release';

/** The Unleash release lines flaglens supports (6.10.1, 7.6.5, 8.2.0), oldest first. */
export const SUPPORTED_RELEASES = ['6', '7', '8'] as const;

export type UnleashRelease = (typeof SUPPORTED_RELEASES)[number];

/** What flaglens answers as when the release is unknown (no header ever seen) or not supported. */
export const NEWEST_RELEASE: UnleashRelease = '8';

/** The release flaglens answers as, given what the topic said (null: nothing said). */
export function answeringRelease(carried: string | null | undefined): UnleashRelease {
  return (SUPPORTED_RELEASES as readonly string[]).includes(carried ?? '')
    ? (carried as UnleashRelease)
    : NEWEST_RELEASE;
}

/** The header's value as kafkajs gives it (a Buffer, a string, or a list of them), or undefined. */
export function releaseFromHeader(value: unknown): string | undefined {
  const v: unknown = Array.isArray(value) ? value[value.length - 1] : value;
  const text = typeof v === 'string' ? v : Buffer.isBuffer(v) ? v.toString('utf8') : undefined;
  return text !== undefined && /^\d{1,3}$/.test(text) ? text : undefined;
}
