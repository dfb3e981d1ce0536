import { Controller, Get, HttpException, HttpStatus } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { DataSource } from 'typeorm';

@ApiExcludeController()
@Controller('health')
export class HealthController {
  constructor(private readonly db: DataSource) {}

  @Get('live')
  live() {
    return { status: 'ok' };
  }

  @Get('ready')
  async ready() {
    try {
      await Promise.race([
        this.db.query('SELECT 1'),
        new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000)),
      ]);
      return { status: 'ready', checks: { postgres: 'up' } };
    } catch (e) {
      throw new HttpException(
        { status: 'not ready', checks: { postgres: `down: ${(e as Error).message}` } },
        HttpStatus.SERVICE_UNAVAILABLE,
      );
    }
  }
}
