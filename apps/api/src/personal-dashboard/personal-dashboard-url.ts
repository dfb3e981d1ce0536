import { Injectable } from '@nestjs/common';
import { AppConfig, unleashUrl } from '@flaglens/config';

/** The Unleash address the latest events' summaries link to (as the event search's). */
@Injectable()
export class PersonalDashboardUrl {
  readonly value: string;

  constructor(config: AppConfig) {
    this.value = unleashUrl(config);
  }
}
