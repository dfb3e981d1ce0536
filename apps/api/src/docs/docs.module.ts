import { Module } from '@nestjs/common';
import { SchemaController } from './schema.controller';

/** The published event contract (`/schemas/feature-event.json`); Swagger UI is set up in main.ts. */
@Module({ controllers: [SchemaController] })
export class DocsModule {}
