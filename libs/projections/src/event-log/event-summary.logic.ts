/**
 * An event's `label` and `summary` as Unleash 8.2.0's event search renders them (its markdown event formatter:
 * a label and a Mustache-style action template per event type, `**` for bold, links to the Unleash at
 * `unleashUrl`). Pure. The values are JSON as stored, so the rules below keep JavaScript's semantics where the
 * reference relies on them (`||` chains, template strings of any value, a missing field as an empty text).
 */

/* eslint-disable @typescript-eslint/no-explicit-any -- event payloads are JSON of any shape, read as the reference reads them */

export interface SummarisedEvent {
  type: string;
  createdBy: string;
  featureName: string | null;
  project: string | null;
  environment: string | null;
  data: any;
  preData: any;
}

interface EventText {
  label: string;
  action: string;
}

const PROJECT_FLAG = (verb: string) =>
  `{{b}}{{user}}{{b}} ${verb} {{b}}{{feature}}{{b}} in project {{b}}{{project}}{{b}}`;
const CHANGE_REQUEST = (label: string, action: string): EventText => ({
  label,
  action: `{{b}}{{user}}{{b}} ${action} {{changeRequest}}`,
});
const WITH_DATA = (label: string, verb: string, field: string): EventText => ({
  label,
  action: `{{b}}{{user}}{{b}} ${verb} {{b}}{{event.data.${field}}}{{b}}`,
});
const WITH_PRE_DATA = (label: string, verb: string, field: string): EventText => ({
  label,
  action: `{{b}}{{user}}{{b}} ${verb} {{b}}{{event.preData.${field}}}{{b}}`,
});
const IN_ENVIRONMENT = 'for the {{b}}{{event.environment}}{{b}} environment in project {{b}}{{project}}{{b}}';

/** Label and action template per event type (the types the reference's formatter knows). */
export const EVENT_TEXTS: ReadonlyMap<string, EventText> = new Map<string, EventText>([
  [
    'addon-config-created',
    {
      label: 'Integration configuration created',
      action: '{{b}}{{user}}{{b}} created a new {{b}}{{event.data.provider}}{{b}} integration configuration',
    },
  ],
  [
    'addon-config-deleted',
    {
      label: 'Integration configuration deleted',
      action: '{{b}}{{user}}{{b}} deleted a {{b}}{{event.preData.provider}}{{b}} integration configuration',
    },
  ],
  [
    'addon-config-updated',
    {
      label: 'Integration configuration updated',
      action: '{{b}}{{user}}{{b}} updated a {{b}}{{event.preData.provider}}{{b}} integration configuration',
    },
  ],
  ['api-token-created', WITH_DATA('API token created', 'created API token', 'username')],
  ['api-token-deleted', WITH_PRE_DATA('API token deleted', 'deleted API token', 'username')],
  ['change-added', CHANGE_REQUEST('Change added', 'added a change to change request')],
  ['change-discarded', CHANGE_REQUEST('Change discarded', 'discarded a change in change request')],
  ['change-edited', CHANGE_REQUEST('Change edited', 'edited a change in change request')],
  ['change-request-applied', CHANGE_REQUEST('Change request applied', 'applied change request')],
  [
    'change-request-approval-added',
    CHANGE_REQUEST('Change request approval added', 'added an approval to change request'),
  ],
  ['change-request-approved', CHANGE_REQUEST('Change request approved', 'approved change request')],
  ['change-request-cancelled', CHANGE_REQUEST('Change request cancelled', 'cancelled change request')],
  ['change-request-created', CHANGE_REQUEST('Change request created', 'created change request')],
  ['change-request-discarded', CHANGE_REQUEST('Change request discarded', 'discarded change request')],
  ['change-request-rejected', CHANGE_REQUEST('Change request rejected', 'rejected change request')],
  [
    'change-request-sent-to-review',
    CHANGE_REQUEST('Change request sent to review', 'sent to review change request'),
  ],
  [
    'change-request-scheduled',
    {
      label: 'Change request scheduled',
      action:
        '{{b}}{{user}}{{b}} scheduled change request {{changeRequest}} to be applied at {{event.data.scheduledDate}}.',
    },
  ],
  [
    'change-request-scheduled-application-success',
    {
      label: 'Scheduled change request applied successfully',
      action:
        '{{b}}Successfully{{b}} applied the scheduled change request {{changeRequest}} by {{b}}{{user}}{{b}}.',
    },
  ],
  [
    'change-request-scheduled-application-failure',
    {
      label: 'Scheduled change request failed',
      action:
        '{{b}}Failed{{b}} to apply the scheduled change request {{changeRequest}} by {{b}}{{user}}{{b}}.',
    },
  ],
  [
    'change-request-schedule-suspended',
    {
      label: 'Change request suspended',
      action:
        'Change request {{changeRequest}} was suspended for the following reason: {{event.data.reason}}',
    },
  ],
  ['context-field-created', WITH_DATA('Context field created', 'created context field', 'name')],
  ['context-field-deleted', WITH_PRE_DATA('Context field deleted', 'deleted context field', 'name')],
  ['context-field-updated', WITH_PRE_DATA('Context field updated', 'updated context field', 'name')],
  [
    'feature-archived',
    {
      label: 'Flag archived',
      action: '{{b}}{{user}}{{b}} archived {{b}}{{event.featureName}}{{b}} in project {{b}}{{project}}{{b}}',
    },
  ],
  ['feature-created', { label: 'Flag created', action: PROJECT_FLAG('created') }],
  [
    'feature-deleted',
    {
      label: 'Flag deleted',
      action: '{{b}}{{user}}{{b}} deleted {{b}}{{event.featureName}}{{b}} in project {{b}}{{project}}{{b}}',
    },
  ],
  [
    'feature-environment-disabled',
    { label: 'Flag disabled', action: `{{b}}{{user}}{{b}} disabled {{b}}{{feature}}{{b}} ${IN_ENVIRONMENT}` },
  ],
  [
    'feature-environment-enabled',
    { label: 'Flag enabled', action: `{{b}}{{user}}{{b}} enabled {{b}}{{feature}}{{b}} ${IN_ENVIRONMENT}` },
  ],
  [
    'feature-environment-variants-updated',
    {
      label: 'Flag variants updated',
      action: `{{b}}{{user}}{{b}} updated variants for {{b}}{{feature}}{{b}} ${IN_ENVIRONMENT}`,
    },
  ],
  [
    'feature-metadata-updated',
    {
      label: 'Flag metadata updated',
      action: '{{b}}{{user}}{{b}} updated {{b}}{{feature}}{{b}} metadata in project {{b}}{{project}}{{b}}',
    },
  ],
  [
    'feature-completed',
    {
      label: 'Flag marked as completed',
      action: '{{b}}{{feature}}{{b}} was marked as completed in project {{b}}{{project}}{{b}}',
    },
  ],
  [
    'feature-potentially-stale-on',
    {
      label: 'Flag potentially stale',
      action: '{{b}}{{feature}}{{b}} was marked as potentially stale in project {{b}}{{project}}{{b}}',
    },
  ],
  [
    'feature-project-change',
    {
      label: 'Flag moved to a new project',
      action:
        '{{b}}{{user}}{{b}} moved {{b}}{{feature}}{{b}} from {{b}}{{event.data.oldProject}}{{b}} to {{b}}{{project}}{{b}}',
    },
  ],
  ['feature-revived', { label: 'Flag revived', action: PROJECT_FLAG('revived') }],
  [
    'feature-stale-off',
    {
      label: 'Flag stale marking removed',
      action:
        '{{b}}{{user}}{{b}} removed the stale marking on {{b}}{{feature}}{{b}} in project {{b}}{{project}}{{b}}',
    },
  ],
  [
    'feature-stale-on',
    {
      label: 'Flag marked as stale',
      action: '{{b}}{{user}}{{b}} marked {{b}}{{feature}}{{b}} as stale in project {{b}}{{project}}{{b}}',
    },
  ],
  [
    'feature-strategy-add',
    {
      label: 'Flag strategy added',
      action: `{{b}}{{user}}{{b}} added strategy {{b}}{{strategyTitle}}{{b}} to {{b}}{{feature}}{{b}} ${IN_ENVIRONMENT}`,
    },
  ],
  [
    'feature-strategy-remove',
    {
      label: 'Flag strategy removed',
      action: `{{b}}{{user}}{{b}} removed strategy {{b}}{{strategyTitle}}{{b}} from {{b}}{{feature}}{{b}} ${IN_ENVIRONMENT}`,
    },
  ],
  [
    'feature-strategy-update',
    {
      label: 'Flag strategy updated',
      action:
        '{{b}}{{user}}{{b}} updated {{b}}{{feature}}{{b}} in project {{b}}{{project}}{{b}} {{strategyChangeText}}',
    },
  ],
  [
    'feature-tagged',
    {
      label: 'Flag tagged',
      action:
        '{{b}}{{user}}{{b}} tagged {{b}}{{feature}}{{b}} with {{b}}{{event.data.type}}:{{event.data.value}}{{b}} in project {{b}}{{project}}{{b}}',
    },
  ],
  [
    'feature-untagged',
    {
      label: 'Flag untagged',
      action:
        '{{b}}{{user}}{{b}} untagged {{b}}{{feature}}{{b}} with {{b}}{{event.preData.type}}:{{event.preData.value}}{{b}} in project {{b}}{{project}}{{b}}',
    },
  ],
  ['group-created', WITH_DATA('Group created', 'created group', 'name')],
  ['group-deleted', WITH_PRE_DATA('Group deleted', 'deleted group', 'name')],
  ['group-updated', WITH_PRE_DATA('Group updated', 'updated group', 'name')],
  ['banner-created', WITH_DATA('Banner created', 'created banner', 'message')],
  ['banner-deleted', WITH_PRE_DATA('Banner deleted', 'deleted banner', 'message')],
  ['banner-updated', WITH_PRE_DATA('Banner updated', 'updated banner', 'message')],
  [
    'project-created',
    { label: 'Project created', action: '{{b}}{{user}}{{b}} created project {{b}}{{project}}{{b}}' },
  ],
  [
    'project-archived',
    { label: 'Project archived', action: '{{b}}{{user}}{{b}} archived project {{b}}{{event.project}}{{b}}' },
  ],
  [
    'project-deleted',
    { label: 'Project deleted', action: '{{b}}{{user}}{{b}} deleted project {{b}}{{event.project}}{{b}}' },
  ],
  ['segment-created', WITH_DATA('Segment created', 'created segment', 'name')],
  ['segment-deleted', WITH_PRE_DATA('Segment deleted', 'deleted segment', 'name')],
  ['segment-updated', WITH_PRE_DATA('Segment updated', 'updated segment', 'name')],
  ['service-account-created', WITH_DATA('Service account created', 'created service account', 'name')],
  [
    'service-account-token-created',
    WITH_DATA('Service account token created', 'created a token for service account', 'ownerId'),
  ],
  [
    'service-account-token-deleted',
    WITH_DATA('Service account token deleted', 'deleted a token for service account', 'ownerId'),
  ],
  ['service-account-deleted', WITH_PRE_DATA('Service account deleted', 'deleted service account', 'name')],
  ['service-account-updated', WITH_PRE_DATA('Service account updated', 'updated service account', 'name')],
  ['user-created', WITH_DATA('User created', 'created user', 'name')],
  ['user-deleted', WITH_PRE_DATA('User deleted', 'deleted user', 'name')],
  ['user-updated', WITH_PRE_DATA('User updated', 'updated user', 'name')],
  [
    'release-plan-added',
    {
      label: 'Release plan added',
      action: `{{b}}{{user}}{{b}} added release plan {{b}}{{event.data.name}}{{b}} to {{b}}{{feature}}{{b}} ${IN_ENVIRONMENT}`,
    },
  ],
  [
    'release-plan-removed',
    {
      label: 'Release plan removed',
      action: `{{b}}{{user}}{{b}} removed release plan {{b}}{{event.preData.name}}{{b}} from {{b}}{{feature}}{{b}} ${IN_ENVIRONMENT}`,
    },
  ],
  [
    'release-plan-milestone-started',
    {
      label: 'Release plan milestone started',
      action: `{{b}}{{user}}{{b}} started milestone {{b}}{{event.data.milestoneName}}{{b}} in release plan {{b}}{{event.data.name}}{{b}} for {{b}}{{feature}}{{b}} ${IN_ENVIRONMENT}`,
    },
  ],
  [
    'release-plan-progressions-paused',
    {
      label: 'Release plan progressions paused',
      action:
        '{{b}}Release plan progressions paused{{b}} by safeguard for {{b}}{{feature}}{{b}} in the {{b}}{{event.environment}}{{b}} environment in project {{b}}{{project}}{{b}}',
    },
  ],
  [
    'release-plan-progressions-resumed',
    {
      label: 'Release plan progressions resumed',
      action:
        '{{b}}{{user}}{{b}} resumed release plan progressions for {{b}}{{feature}}{{b}} in the {{b}}{{event.environment}}{{b}} environment in project {{b}}{{project}}{{b}}',
    },
  ],
  [
    'user-access-request-registered',
    {
      label: 'User access request registered',
      action: '{{b}}{{event.data.email}}{{b}} requested access to Unleash',
    },
  ],
  [
    'user-access-request-approved',
    {
      label: 'User access request approved',
      action: '{{b}}{{user}}{{b}} approved access request for {{b}}{{event.data.email}}{{b}}',
    },
  ],
  [
    'user-access-request-rejected',
    {
      label: 'User access request rejected',
      action: '{{b}}{{user}}{{b}} rejected access request for {{b}}{{event.data.email}}{{b}}',
    },
  ],
]);

const CONSTRAINT_OPERATORS: Record<string, string> = {
  IN: 'is one of',
  NOT_IN: 'is not one of',
  STR_CONTAINS: 'is a string that contains',
  STR_STARTS_WITH: 'is a string that starts with',
  STR_ENDS_WITH: 'is a string that ends with',
  NUM_EQ: 'is a number equal to',
  NUM_GT: 'is a number greater than',
  NUM_GTE: 'is a number greater than or equal to',
  NUM_LT: 'is a number less than',
  NUM_LTE: 'is a number less than or equal to',
  DATE_BEFORE: 'is a date before',
  DATE_AFTER: 'is a date after',
  SEMVER_EQ: 'is a SemVer equal to',
  SEMVER_GT: 'is a SemVer greater than',
  SEMVER_LT: 'is a SemVer less than',
  SEMVER_GTE: 'is a SemVer greater than or equal to',
  SEMVER_LTE: 'is a SemVer less than or equal to',
  REGEX: 'matches regex',
};

const own = (o: any, k: string): boolean => o != null && Object.prototype.hasOwnProperty.call(o, k);

/** Renders the markdown summaries of events, with links to the Unleash at `unleashUrl`. */
export class EventSummaries {
  constructor(private readonly unleashUrl: string) {}

  private bold(text?: any): string {
    return text ? `**${text}**` : '**';
  }

  /** `label` and `summary` of one event (the reference's `{label, text}`). */
  format(event: SummarisedEvent): { label: string; summary: string } {
    const known = EVENT_TEXTS.get(event.type);
    const { label, action } = known ?? {
      label: event.type,
      action: `${this.bold(event.createdBy)} triggered ${this.bold(event.type)}`,
    };
    const context: Record<string, any> = {
      user: event.createdBy,
      event,
      strategyTitle: this.strategyTitle(event),
      strategyChangeText: this.strategyChangeText(event),
      changeRequest: this.changeRequestLink(event),
      feature: this.featureLink(event),
      project: this.projectLink(event),
      b: this.bold(),
    };
    return { label, summary: renderTemplate(action, context) };
  }

  private changeRequestLink(event: SummarisedEvent): string | undefined {
    const { preData, data, project, environment } = event;
    const changeRequestId = data?.changeRequestId || preData?.changeRequestId;
    if (!(project && changeRequestId)) return undefined;
    const url = `${this.unleashUrl}/projects/${project}/change-requests/${changeRequestId}`;
    const feature = this.featureLink(event);
    const featureText = feature ? ` for feature flag ${this.bold(feature)}` : '';
    const environmentText = environment ? ` in the ${this.bold(environment)} environment` : '';
    const projectText = ` in project ${this.bold(this.projectLink(event))}`;
    return `${this.bold(`[#${changeRequestId}](${url})`)}${featureText}${environmentText}${projectText}`;
  }

  private flagUrl(event: SummarisedEvent): string | undefined {
    const { type, project, featureName } = event;
    if (type === 'feature-archived')
      return project ? `${this.unleashUrl}/projects/${project}/archive` : `${this.unleashUrl}/archive`;
    if (featureName) return `${this.unleashUrl}/projects/${project}/features/${featureName}`;
    return undefined;
  }

  private featureLink(event: SummarisedEvent): string | undefined {
    return event.featureName ? `[${event.featureName}](${this.flagUrl(event)})` : undefined;
  }

  private projectLink(event: SummarisedEvent): string | undefined {
    return event.project ? `[${event.project}](${this.unleashUrl}/projects/${event.project})` : undefined;
  }

  private strategyTitle(event: SummarisedEvent): any {
    return event.preData?.title || event.data?.title || event.preData?.name || event.data?.name;
  }

  private strategyChangeText(event: SummarisedEvent): string | undefined {
    const { environment, data, preData, type } = event;
    if (type !== 'feature-strategy-update' || !(data || preData)) return undefined;
    switch ((data || preData).name) {
      case 'flexibleRollout':
        return this.flexibleRolloutText(event);
      case 'default':
        return this.withDetails(event, [
          this.constraintsText(preData?.constraints, data?.constraints),
          this.segmentsText(preData?.segments, data?.segments),
        ]);
      case 'remoteAddress':
        return this.listOfValuesText(event, 'IPs');
      case 'applicationHostname':
        return this.listOfValuesText(event, 'hostNames');
      default:
        return `by updating strategy ${this.bold(this.strategyTitle(event))} in ${this.bold(environment)}`;
    }
  }

  private withDetails(event: SummarisedEvent, details: string[]): string {
    const specific = details.filter((t) => t.length).join(';');
    return `by updating strategy ${this.bold(this.strategyTitle(event))} in ${this.bold(event.environment)}${specific}`;
  }

  private listOfValuesText(event: SummarisedEvent, property: string): string {
    const { preData, data } = event;
    const valuesText = (values: any) => (values.length === 0 ? `empty set of ${property}` : `[${values}]`);
    // as the reference: a payload without `parameters` throws (and fails the whole answer)
    const usersText =
      preData?.parameters[property] === data?.parameters[property]
        ? ''
        : !preData
          ? ` ${property} to ${valuesText(data?.parameters[property])}`
          : ` ${property} from ${valuesText(preData.parameters[property])} to ${valuesText(data?.parameters[property])}`;
    return this.withDetails(event, [
      usersText,
      this.constraintsText(preData?.constraints, data?.constraints),
      this.segmentsText(preData?.segments, data?.segments),
    ]);
  }

  private flexibleRolloutText(event: SummarisedEvent): string {
    const { preData, data } = event;
    const { rollout: oldRollout, stickiness: oldStickiness, groupId: oldGroupId } = preData?.parameters || {};
    const { rollout, stickiness, groupId } = data?.parameters || {};
    const change = (name: string, before: any, after: any, unit = '') =>
      before === after
        ? ''
        : !before
          ? ` ${name} to ${after}${unit}`
          : ` ${name} from ${before}${unit} to ${after}${unit}`;
    return this.withDetails(event, [
      change('stickiness', oldStickiness, stickiness),
      change('rollout', oldRollout, rollout, '%'),
      change('groupId', oldGroupId, groupId),
      this.constraintsText(preData?.constraints, data?.constraints),
      this.segmentsText(preData?.segments, data?.segments),
    ]);
  }

  private constraintsText(before: any = [], after: any = []): string {
    const one = (c: any) => {
      const val = own(c, 'value') ? c.value : `(${c.values?.join(',')})`;
      const operator = own(CONSTRAINT_OPERATORS, c.operator) ? CONSTRAINT_OPERATORS[c.operator] : c.operator;
      return `${c.contextName} ${c.inverted ? 'not ' : ''}${operator} ${val}`;
    };
    const all = (cs: any) => (cs.length === 0 ? 'empty set of constraints' : `[${cs.map(one).join(', ')}]`);
    const [a, b] = [all(before), all(after)];
    return a === b ? '' : ` constraints from ${a} to ${b}`;
  }

  private segmentsText(before: any = [], after: any = []): string {
    const all = (s: any) => (s.length === 0 ? 'empty set of segments' : `(${s.join(',')})`);
    const [a, b] = [all(before), all(after)];
    return a === b ? '' : ` segments from ${a} to ${b}`;
  }
}

/**
 * The reference's templates are Mustache with escaping off: `{{name}}` or `{{a.b.c}}` (whitespace inside the
 * braces ignored, `{{{x}}}` and `{{&x}}` alike) is the value's text, nothing when it is missing or null;
 * `{{!…}}` is a comment. Only an unknown event type's template can hold other tags (from its `createdBy` or
 * type), which are left as they are.
 */
export function renderTemplate(template: string, context: Record<string, any>): string {
  return template.replace(
    /\{\{(\{\s*([^}]*?)\s*\}|[&!]?\s*[^}]*?\s*)\}\}/g,
    (tag: string, inner: string, triple?: string) => {
      let name = triple ?? inner.trim();
      if (triple === undefined) {
        if (name.startsWith('!')) return '';
        if (name.startsWith('&')) name = name.slice(1).trim();
        else if (/^[#^/>=]/.test(name)) return tag;
      }
      const value = lookup(context, name);
      return value == null ? '' : String(value);
    },
  );
}

function lookup(context: Record<string, any>, name: string): any {
  if (name === '.') return context;
  let value: any = context;
  for (const part of name.split('.')) {
    if (value == null || typeof value !== 'object' || !own(value, part)) return undefined;
    value = value[part];
  }
  return typeof value === 'function' ? undefined : value;
}
