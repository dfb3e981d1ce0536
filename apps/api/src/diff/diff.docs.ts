import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { FeatureEventDoc } from '../events/events.docs';

/** One RFC 6902 operation (json-diff.ts makes add, remove, replace and move). Documentation only. */
export class PatchOperationDoc {
  @ApiProperty({ enum: ['add', 'remove', 'replace', 'move'] }) op: string;
  @ApiProperty({ description: 'a JSON Pointer (RFC 6901) into the answer' }) path: string;
  @ApiPropertyOptional({ description: 'where a move takes the value from' }) from?: string;
  @ApiPropertyOptional({
    description: 'the value an add or a replace puts: any JSON value (null too)',
    oneOf: [
      { type: 'object', nullable: true, additionalProperties: true },
      { type: 'array', items: {} },
      { type: 'string' },
      { type: 'number' },
      { type: 'boolean' },
    ],
  })
  value?: unknown;
}

/** The answer of GET /api/admin/diff. */
export class DiffDoc {
  @ApiProperty({ description: 'the read, as asked' }) path: string;
  @ApiProperty({ format: 'date-time' }) from: string;
  @ApiProperty({ format: 'date-time' }) to: string;
  @ApiProperty({
    description:
      'the read as of `from`, as it answers with at=; null when what it reads did not exist then (a project created in the range)',
    type: 'object',
    additionalProperties: true,
    nullable: true,
  })
  before: object | null;
  @ApiProperty({
    description:
      'the read as of `to`, as it answers with at=; null when what it reads no longer existed (a project deleted in the range)',
    type: 'object',
    additionalProperties: true,
    nullable: true,
  })
  after: object | null;
  @ApiProperty({ type: [PatchOperationDoc], description: 'applied in order to `before`, they give `after`' })
  patch: PatchOperationDoc[];
  @ApiProperty({
    type: [FeatureEventDoc],
    description: "the read's scope's events in (from, to], oldest first: the first DIFF_MAX_EVENTS of them",
  })
  events: FeatureEventDoc[];
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'the path of the next page of the events (GET /api/admin/diff/events), or null when they are all here',
    example: null,
  })
  eventsNext: string | null;
}

/** The answer of GET /api/admin/diff/events: a further page of a diff's events. */
export class DiffEventsDoc {
  @ApiProperty({ description: 'the read, as asked' }) path: string;
  @ApiProperty({ format: 'date-time' }) from: string;
  @ApiProperty({ format: 'date-time' }) to: string;
  @ApiProperty({
    type: [FeatureEventDoc],
    description:
      "the read's scope's events in (from, to] after the page asked from, oldest first: at most DIFF_MAX_EVENTS",
  })
  events: FeatureEventDoc[];
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'the path of the next page, or null at the end',
    example: null,
  })
  eventsNext: string | null;
}
