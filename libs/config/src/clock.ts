/** The one source of "now" for read-time values (stats windows, staleness, the current week). */
export abstract class Clock {
  abstract now(): Date;
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}

export class FixedClock extends Clock {
  constructor(private readonly at: Date) {
    super();
  }
  now(): Date {
    return new Date(this.at.getTime());
  }
}

export function clockFromConfig(pinned: string | undefined): Clock {
  return pinned ? new FixedClock(new Date(pinned)) : new SystemClock();
}
