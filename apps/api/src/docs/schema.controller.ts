import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { buildEventJsonSchema } from '@flaglens/contract';

/** The published event contract, so producers can validate before they send. */
@ApiExcludeController()
@Controller('schemas')
export class SchemaController {
  private readonly body = JSON.stringify(buildEventJsonSchema(), null, 2);

  @Get('feature-event.json')
  @Header('Content-Type', 'application/schema+json; charset=utf-8')
  featureEvent(): string {
    return this.body;
  }
}
