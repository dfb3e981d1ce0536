/**
 * The event types flaglens knows: the 146 of api-spec.md part 6 ("Allowed values of `type`, by group"), in
 * the spec's order, then those the supported Unleash releases add (read from `IEventTypes` in the packages
 * unleash-server 6.10.1, 7.6.5 and 8.2.0; copies in libs/contract/test-fixtures/unleash-event-types/): 179
 * in all, the union of the three releases. Two of them (`project-group-removed`,
 * `project-group-role-changed`) were dropped in 7.0 but stay in older histories.
 *
 * A type outside this list (an Unleash newer than flaglens) is *unknown*: `parseEvent` accepts it with
 * `knownType: false` when asked to (`allowUnknownTypes`, the projector's default), else rejects it.
 */

/** api-spec part 6, group "Feature". */
export const FEATURE_EVENT_TYPES = [
  'feature-created',
  'feature-deleted',
  'feature-updated',
  'feature-metadata-updated',
  'feature-variants-updated',
  'feature-environment-variants-updated',
  'feature-project-change',
  'feature-archived',
  'feature-revived',
  'feature-import',
  'feature-tagged',
  'feature-tag-import',
  'feature-strategy-update',
  'feature-strategy-add',
  'feature-strategy-remove',
  'feature-type-updated',
  'feature-completed',
  'feature-uncompleted',
  'strategy-order-changed',
  'drop-feature-tags',
  'feature-untagged',
  'feature-stale-on',
  'feature-stale-off',
  'feature-potentially-stale-on',
  'drop-features',
  'feature-environment-enabled',
  'feature-environment-disabled',
  'feature-favorited',
  'feature-unfavorited',
  'features-exported',
  'features-imported',
  'feature-dependency-added',
  'feature-dependency-removed',
  'feature-dependencies-removed',
  'default-strategy-updated',
] as const;
/** api-spec part 6, group "Strategy and context". */
export const STRATEGY_AND_CONTEXT_EVENT_TYPES = [
  'strategy-created',
  'strategy-deleted',
  'strategy-deprecated',
  'strategy-reactivated',
  'strategy-updated',
  'strategy-import',
  'drop-strategies',
  'context-field-created',
  'context-field-updated',
  'context-field-deleted',
] as const;
/** api-spec part 6, group "Project and access". */
export const PROJECT_AND_ACCESS_EVENT_TYPES = [
  'project-access-added',
  'project-access-user-roles-updated',
  'project-access-group-roles-updated',
  'project-access-user-roles-deleted',
  'project-access-group-roles-deleted',
  'project-access-updated',
  'project-created',
  'project-updated',
  'project-deleted',
  'project-archived',
  'project-revived',
  'project-import',
  'project-user-added',
  'project-user-removed',
  'project-user-role-changed',
  'project-group-role-changed',
  'project-group-added',
  'project-group-removed',
  'project-favorited',
  'project-unfavorited',
  'project-environment-added',
  'project-environment-removed',
  'drop-projects',
  'role-created',
  'role-updated',
  'role-deleted',
] as const;
/** api-spec part 6, group "Tags". */
export const TAG_EVENT_TYPES = [
  'tag-created',
  'tag-deleted',
  'tag-import',
  'drop-tags',
  'tag-type-created',
  'tag-type-deleted',
  'tag-type-updated',
  'tag-type-import',
  'drop-tag-types',
] as const;
/** api-spec part 6, group "Environments and segments". */
export const ENVIRONMENT_AND_SEGMENT_EVENT_TYPES = [
  'drop-environments',
  'environment-import',
  'environment-created',
  'environment-updated',
  'environment-deleted',
  'segment-created',
  'segment-updated',
  'segment-deleted',
  'segment-import',
] as const;
/** api-spec part 6, group "Users, groups, tokens, settings". */
export const USER_GROUP_TOKEN_SETTING_EVENT_TYPES = [
  'application-created',
  'addon-config-created',
  'addon-config-updated',
  'addon-config-deleted',
  'db-pool-update',
  'user-created',
  'user-updated',
  'user-deleted',
  'group-created',
  'group-updated',
  'group-deleted',
  'group-user-added',
  'group-user-removed',
  'setting-created',
  'setting-updated',
  'setting-deleted',
  'client-metrics',
  'client-register',
  'pat-created',
  'pat-deleted',
  'public-signup-token-created',
  'public-signup-token-user-added',
  'public-signup-token-updated',
  'api-token-created',
  'api-token-updated',
  'api-token-deleted',
  'service-account-created',
  'service-account-deleted',
  'service-account-updated',
  'banner-created',
  'banner-updated',
  'banner-deleted',
] as const;
/** api-spec part 6, group "Change requests". */
export const CHANGE_REQUEST_EVENT_TYPES = [
  'change-request-created',
  'change-request-discarded',
  'change-added',
  'change-discarded',
  'change-edited',
  'change-request-rejected',
  'change-request-approved',
  'change-request-approval-added',
  'change-request-cancelled',
  'change-request-sent-to-review',
  'change-request-schedule-suspended',
  'change-request-applied',
  'change-request-scheduled',
  'change-request-scheduled-application-success',
  'change-request-scheduled-application-failure',
  'change-request-configuration-updated',
] as const;
/** api-spec part 6, group "Signals and actions". */
export const SIGNAL_AND_ACTION_EVENT_TYPES = [
  'signal-endpoint-created',
  'signal-endpoint-updated',
  'signal-endpoint-deleted',
  'signal-endpoint-token-created',
  'signal-endpoint-token-updated',
  'signal-endpoint-token-deleted',
  'actions-created',
  'actions-updated',
  'actions-deleted',
] as const;
/** Unleash 6.10.1's types beyond the spec, in the release's order. */
export const UNLEASH_6_EVENT_TYPES = [
  'feature-link-added',
  'feature-link-removed',
  'feature-link-updated',
  'release-plan-template-created',
  'release-plan-template-updated',
  'release-plan-template-deleted',
  'release-plan-template-archived',
  'release-plan-added',
  'release-plan-removed',
  'release-plan-milestone-started',
  'user-preference-updated',
  'scim-users-deleted',
  'scim-groups-deleted',
] as const;

/** Types Unleash 7 added (7.6.5), in the release's order. */
export const UNLEASH_7_EVENT_TYPES = [
  'safeguard-changed',
  'safeguard-deleted',
  'release-plan-progressions-resumed',
  'release-plan-progressions-paused',
  'milestone-progression-created',
  'milestone-progression-updated',
  'milestone-progression-deleted',
  'milestone-progression-changed',
  'cdn-token-created',
  'change-request-requested-approvers-updated',
  'impact-metric-created',
  'impact-metric-updated',
  'impact-metric-deleted',
  'user-access-request-registered',
  'user-access-request-approved',
  'user-access-request-rejected',
  'remote-mcp-server-settings-updated',
] as const;

/** Types Unleash 8 added (8.2.0), in the release's order. */
export const UNLEASH_8_EVENT_TYPES = [
  'service-account-token-created',
  'service-account-token-deleted',
  'safeguard-triggered',
] as const;

/** All 179 known event types: api-spec part 6 in the spec's order, then the releases' additions. */
export const EVENT_TYPES = [
  ...FEATURE_EVENT_TYPES,
  ...STRATEGY_AND_CONTEXT_EVENT_TYPES,
  ...PROJECT_AND_ACCESS_EVENT_TYPES,
  ...TAG_EVENT_TYPES,
  ...ENVIRONMENT_AND_SEGMENT_EVENT_TYPES,
  ...USER_GROUP_TOKEN_SETTING_EVENT_TYPES,
  ...CHANGE_REQUEST_EVENT_TYPES,
  ...SIGNAL_AND_ACTION_EVENT_TYPES,
  ...UNLEASH_6_EVENT_TYPES,
  ...UNLEASH_7_EVENT_TYPES,
  ...UNLEASH_8_EVENT_TYPES,
] as const;

/** One of the known event types. */
export type EventType = (typeof EVENT_TYPES)[number];

/** The groups of part 6, by heading, then the releases' additions. */
export const EVENT_TYPE_GROUPS: Readonly<Record<string, readonly EventType[]>> = Object.freeze({
  Feature: FEATURE_EVENT_TYPES,
  'Strategy and context': STRATEGY_AND_CONTEXT_EVENT_TYPES,
  'Project and access': PROJECT_AND_ACCESS_EVENT_TYPES,
  Tags: TAG_EVENT_TYPES,
  'Environments and segments': ENVIRONMENT_AND_SEGMENT_EVENT_TYPES,
  'Users, groups, tokens, settings': USER_GROUP_TOKEN_SETTING_EVENT_TYPES,
  'Change requests': CHANGE_REQUEST_EVENT_TYPES,
  'Signals and actions': SIGNAL_AND_ACTION_EVENT_TYPES,
  'Unleash 6.10.1, beyond the spec': UNLEASH_6_EVENT_TYPES,
  'Added in Unleash 7': UNLEASH_7_EVENT_TYPES,
  'Added in Unleash 8': UNLEASH_8_EVENT_TYPES,
});

/** SDK traffic carried on the event stream; `data` is the SDK's request body (see the SDK payload DTOs). */
export const CLIENT_REGISTER_EVENT_TYPE = 'client-register' satisfies EventType;
export const CLIENT_METRICS_EVENT_TYPE = 'client-metrics' satisfies EventType;

const KNOWN_EVENT_TYPES: ReadonlySet<string> = new Set<string>(EVENT_TYPES);

/** True when `s` is one of the 179 known event types. */
export function isKnownEventType(s: unknown): s is EventType {
  return typeof s === 'string' && KNOWN_EVENT_TYPES.has(s);
}
