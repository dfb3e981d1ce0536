import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { ConsoleController } from './console.controller';
import { ConsoleReads } from './console-reads.service';
import { OperationsService } from './operations.service';

/** The web console's own reads (its pages are static files: see console-static.ts). */
@Module({
  imports: [AuthModule],
  controllers: [ConsoleController],
  providers: [ConsoleReads, OperationsService],
})
export class ConsoleModule {}
