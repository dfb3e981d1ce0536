import { Controller, Get, HttpException, HttpStatus } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { LiveProjector } from './live-projector.service';

@Controller('health')
export class HealthController {
  constructor(
    private readonly db: DataSource,
    private readonly projector: LiveProjector,
  ) {}

  @Get('live')
  live() {
    return { status: 'ok' };
  }

  @Get('ready')
  async ready() {
    const checks: Record<string, string> = {};
    try {
      await Promise.race([
        this.db.query('SELECT 1'),
        new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000)),
      ]);
      checks.postgres = 'up';
    } catch (e) {
      checks.postgres = `down: ${(e as Error).message}`;
    }
    checks.consumer = this.projector.consumer.isJoined ? 'joined' : 'not joined';
    const ok = checks.postgres === 'up' && this.projector.consumer.isJoined;
    if (!ok) throw new HttpException({ status: 'not ready', checks }, HttpStatus.SERVICE_UNAVAILABLE);
    return { status: 'ready', checks };
  }
}
