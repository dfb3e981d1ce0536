import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { GetProfileHandler } from './get-profile.query';
import { ProfileController } from './profile.controller';

/** GET /api/admin/user/profile. */
@Module({
  imports: [AuthModule],
  controllers: [ProfileController],
  providers: [GetProfileHandler],
})
export class ProfileModule {}
