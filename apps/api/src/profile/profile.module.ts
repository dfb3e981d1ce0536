import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { ReadsModule } from '../reads/reads.module';
import { GetProfileHandler } from './get-profile.query';
import { ProfileController } from './profile.controller';

/** GET /api/admin/user/profile. */
@Module({
  imports: [AuthModule, ReadsModule],
  controllers: [ProfileController],
  providers: [GetProfileHandler],
})
export class ProfileModule {}
