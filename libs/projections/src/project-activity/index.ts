export * from './project-activity.logic';
export * from './project-activity.migration';
export * from './project-activity-from-event-log.migration';
export * from './project-activity.projection';
