import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller';

/** GET /health/live and /health/ready. */
@Module({
  // no log line per failed probe (a prober asks every few seconds): the checks log their causes
  imports: [TerminusModule.forRoot({ logger: false })],
  controllers: [HealthController],
})
export class HealthModule {}
