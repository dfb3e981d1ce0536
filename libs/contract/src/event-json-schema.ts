import type { MetadataStorage as ClassTransformerMetadataStorage } from 'class-transformer/types/MetadataStorage';
import { MetadataStorage, getMetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { ClientMetricsBucketDto, ClientMetricsDataDto, ToggleMetricsDto } from './client-metrics-data.dto';
import { ClientRegisterDataDto } from './client-register-data.dto';
import { RFC3339_DATE_TIME_PATTERN } from './date-time';
import { MAX_TEXT_LENGTH } from './event-limits';
import { CLIENT_METRICS_EVENT_TYPE, CLIENT_REGISTER_EVENT_TYPE } from './event-types';
import { FeatureEventDto } from './feature-event.dto';
import { TagDto } from './tag.dto';
import { WELL_FORMED_PATTERN } from './well-formed-text.validator';

// class-transformer's metadata (the `@Type` of nested properties) is not in its typed entry point.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as {
  defaultMetadataStorage: ClassTransformerMetadataStorage;
};

export const EVENT_JSON_SCHEMA_ID = 'https://flaglens.dev/schemas/feature-event.json';
export const EVENT_JSON_SCHEMA_DRAFT = 'http://json-schema.org/draft-07/schema#';
/** Where `npm run schema:generate` writes the schema (relative to the repository root). */
export const EVENT_JSON_SCHEMA_PATH = 'libs/contract/schema/feature-event.schema.json';

/** A JSON Schema node (draft-07), loosely typed. */
export type JsonSchema = { [keyword: string]: unknown };

/** The DTOs of the contract; the first is the root, the others become `definitions`. */
const ROOT_DTO = FeatureEventDto;
const DEFINITION_DTOS: readonly (new () => object)[] = [
  TagDto,
  ClientRegisterDataDto,
  ClientMetricsDataDto,
  ClientMetricsBucketDto,
  ToggleMetricsDto,
];

/** Schemas of our custom class-validator constraints (by constraint name). */
const SDK_TIMESTAMP_SCHEMA: JsonSchema = {
  oneOf: [
    { type: 'string', format: 'date-time', pattern: RFC3339_DATE_TIME_PATTERN.source },
    { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
  ],
};
const CUSTOM_CONVERTERS: Record<string, JsonSchema> = {
  isSdkTimestamp: SDK_TIMESTAMP_SCHEMA,
  isCountRecord: {
    type: 'object',
    additionalProperties: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
  },
  hasOnlyObjectValues: {},
  isWellFormedText: { pattern: WELL_FORMED_PATTERN },
  hasNameKeys: { propertyNames: { minLength: 1, maxLength: MAX_TEXT_LENGTH, pattern: WELL_FORMED_PATTERN } },
  // expressed at the root as `allOf` / `if` / `then` (see below)
  isSdkPayload: {},
};

/**
 * A class-validator metadata storage holding only the contract's DTOs, so that other DTOs of the
 * process (same class names, say) can never leak into the event schema.
 */
function contractMetadataStorage(): MetadataStorage {
  const global = getMetadataStorage();
  const storage = new MetadataStorage();
  const constraintClasses = new Set<NonNullable<ValidationMetadata['constraintCls']>>();
  for (const dto of [ROOT_DTO, ...DEFINITION_DTOS]) {
    for (const meta of global.getTargetValidationMetadatas(dto, '', true, false)) {
      storage.addValidationMetadata(meta);
      if (meta.constraintCls) constraintClasses.add(meta.constraintCls);
    }
  }
  for (const cls of constraintClasses) {
    for (const constraint of global.getTargetValidatorConstraints(cls))
      storage.addConstraintMetadata(constraint);
  }
  return storage;
}

const ISO8601_ONE_OF = JSON.stringify([
  { format: 'date', type: 'string' },
  { format: 'date-time', type: 'string' },
]);

/** Tidies one converted property schema: removes what the converters add but the contract does not mean. */
function tidyProperty(schema: JsonSchema, nullable: boolean): JsonSchema {
  const s: JsonSchema = { ...schema };
  // @IsDefined() becomes `not: {type: null}`; `required` plus `type` already say it.
  if (JSON.stringify(s.not) === '{"type":"null"}') delete s.not;
  // @IsISO8601() becomes "date or date-time"; the contract (format + pattern) says date-time only.
  if (JSON.stringify(s.oneOf) === ISO8601_ONE_OF) delete s.oneOf;
  // `items: {}` adds nothing
  if (s.items !== undefined && JSON.stringify(s.items) === '{}') delete s.items;
  if (nullable) {
    if (typeof s.type === 'string') s.type = [s.type, 'null'];
    else if (Array.isArray(s.oneOf)) s.oneOf = [...s.oneOf, { type: 'null' }];
    else if (typeof s.$ref === 'string') return { anyOf: [{ $ref: s.$ref }, { type: 'null' }] };
  }
  return s;
}

/** In draft-07 the siblings of `$ref` are ignored: drop them, everywhere. */
function dropRefSiblings(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(dropRefSiblings);
  if (typeof node !== 'object' || node === null) return node;
  const o = node as JsonSchema;
  if (typeof o.$ref === 'string') return { $ref: o.$ref };
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(o)) out[k] = dropRefSiblings(v);
  return out;
}

/** Post-processes one object schema as generated by class-validator-jsonschema. */
function tidyObjectSchema(schema: JsonSchema): JsonSchema {
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const properties: JsonSchema = {};
  for (const [name, prop] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
    properties[name] = tidyProperty(prop, !required.includes(name));
  }
  return { ...schema, properties, required, additionalProperties: true };
}

const FIRST_KEYS = [
  '$schema',
  '$id',
  '$comment',
  '$ref',
  'title',
  'description',
  'type',
  'properties',
  'required',
];
const LAST_KEYS = ['definitions'];

function keyRank(key: string): number {
  const first = FIRST_KEYS.indexOf(key);
  if (first !== -1) return first;
  return LAST_KEYS.includes(key) ? FIRST_KEYS.length + 1 : FIRST_KEYS.length;
}

/**
 * Stable key order: FIRST_KEYS, then the others alphabetically, then `definitions`; the entries of
 * `properties` keep the DTO's field order.
 */
function canonicalKeyOrder(node: unknown, parentKey = ''): unknown {
  if (Array.isArray(node)) return node.map((v) => canonicalKeyOrder(v));
  if (typeof node !== 'object' || node === null) return node;
  const o = node as JsonSchema;
  const keys = Object.keys(o);
  if (parentKey !== 'properties') {
    keys.sort((a, b) => keyRank(a) - keyRank(b) || (a < b ? -1 : a > b ? 1 : 0));
  }
  const out: JsonSchema = {};
  for (const k of keys) out[k] = canonicalKeyOrder(o[k], k);
  return out;
}

function sdkPayloadRule(type: string, definition: string): JsonSchema {
  return {
    if: { properties: { type: { const: type } }, required: ['type'] },
    then: { properties: { data: { $ref: `#/definitions/${definition}` } }, required: ['data'] },
  };
}

/**
 * The JSON Schema (draft-07) of one event value, generated from the DTOs' class-validator metadata
 * with class-validator-jsonschema and then made precise: nullable fields are `[type, "null"]`, the
 * required ones are listed, `type` enumerates the 179 types, SDK events must carry their payload.
 *
 * It is published as `libs/contract/schema/feature-event.schema.json` (`npm run schema:generate`) so that
 * producers can check events before they send them. Things it cannot say: validator.js counts a
 * character followed by a variation selector as one character (JSON Schema counts two), and the
 * consumer's byte limit (1 MiB by default).
 */
export function buildEventJsonSchema(): JsonSchema {
  const schemas = validationMetadatasToSchemas({
    classValidatorMetadataStorage: contractMetadataStorage(),
    classTransformerMetadataStorage: defaultMetadataStorage,
    refPointerPrefix: '#/definitions/',
    additionalConverters: CUSTOM_CONVERTERS,
  }) as Record<string, JsonSchema>;

  const definitions: JsonSchema = {};
  for (const dto of DEFINITION_DTOS) definitions[dto.name] = tidyObjectSchema(schemas[dto.name]);

  const root = tidyObjectSchema(schemas[ROOT_DTO.name]);
  const schema: JsonSchema = {
    $schema: EVENT_JSON_SCHEMA_DRAFT,
    $id: EVENT_JSON_SCHEMA_ID,
    $comment: 'Generated from the DTOs of libs/contract by `npm run schema:generate`. Do not edit by hand.',
    ...root,
    title: 'FeatureEvent',
    allOf: [
      sdkPayloadRule(CLIENT_REGISTER_EVENT_TYPE, ClientRegisterDataDto.name),
      sdkPayloadRule(CLIENT_METRICS_EVENT_TYPE, ClientMetricsDataDto.name),
    ],
    definitions,
  };
  return canonicalKeyOrder(dropRefSiblings(schema)) as JsonSchema;
}

/** The schema as the committed file holds it: two-space indentation and a final newline. */
export function renderEventJsonSchema(): string {
  return `${JSON.stringify(buildEventJsonSchema(), null, 2)}\n`;
}
